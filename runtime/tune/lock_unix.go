//go:build unix

package tune

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on the directory dir and returns its
// release. flock locks belong to the open file, so two goroutines or
// processes that each open dir exclude each other, and the kernel drops
// the lock when a holder dies (even by kill -9). Locking the directory,
// not a lock file beside the DB, leaves nothing behind; DBs that share a
// directory share the lock, which only serialises their short writes.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	return flock(f, syscall.LOCK_EX)
}

// readLockDir takes a shared flock on the directory dir.
func readLockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
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
