//go:build !unix

package atomicfile

import "errors"

// tryLock cannot tell a live writer's file where flock is unavailable: it
// fails, so no temporary file is taken for abandoned.
func tryLock(path string) (unlock func(), err error) {
	return nil, errors.New("no flock here")
}
