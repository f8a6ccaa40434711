//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on the file at path without waiting
// and returns its release; it fails when another open file holds one.
func tryLock(path string) (unlock func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
