//go:build unix

package tune

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path (created if missing) and
// returns its release. flock locks belong to the open file, so two
// goroutines or processes that each open path exclude each other, and the
// kernel drops the lock when a holder dies (even by kill -9).
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return flock(f, syscall.LOCK_EX)
}

// readLockFile takes a shared flock on path, which must exist: readers
// create no file. It fails (fs.ErrNotExist) when there is no lock file.
func readLockFile(path string) (unlock func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return flock(f, syscall.LOCK_SH)
}

// flock locks the open file f (LOCK_EX or LOCK_SH) and returns the release,
// which also closes f; on failure f is closed.
func flock(f *os.File, how int) (unlock func(), err error) {
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
