//go:build !unix

package tune

import "os"

// lockFile only creates path where flock is unavailable: concurrent tuners
// on one DB are not supported there (the writes stay atomic).
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// readLockFile does nothing where flock is unavailable; readers rely on
// the atomic rename of the writes.
func readLockFile(path string) (unlock func(), err error) {
	return func() {}, nil
}
