//go:build unix

package dirlock

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes an exclusive flock on the directory dir and returns its
// release. flock locks belong to the open file, so two goroutines or
// processes that each open dir exclude each other, and the kernel drops
// the lock when a holder dies (even by kill -9). Locking the directory,
// not a lock file beside the DB, leaves nothing behind; DBs that share a
// directory share the lock, which only serialises their short writes (and
// means a holder must not take it again, for another DB of the same
// directory, before releasing it). Where a directory cannot be flocked
// (NFS, whose flock is a POSIX lock that needs a file open for writing),
// the lock falls back to the file fallbackLock in dir, which stays.
func Lock(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	unlock, err = flock(f, syscall.LOCK_EX)
	if err == nil && !stillAt(f, dir) {
		unlock()
		return nil, ErrReplaced
	}
	if !noDirLock(err) {
		return unlock, err
	}
	lf, err := os.OpenFile(filepath.Join(dir, fallbackLock), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return flock(lf, syscall.LOCK_EX)
}

// RLock takes a shared flock on the directory dir, or on its
// fallback lock file where the directory cannot be locked and a writer
// made one (a reader creates nothing).
func RLock(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	unlock, err = flock(f, syscall.LOCK_SH)
	if !noDirLock(err) {
		return unlock, err
	}
	lf, err := os.Open(filepath.Join(dir, fallbackLock))
	if err != nil {
		return nil, err
	}
	return flock(lf, syscall.LOCK_SH)
}

// TryLock takes an exclusive flock on the directory (or file) dir
// without waiting: ErrBusy when another open file holds a lock on it.
func TryLock(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	unlock, err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, ErrBusy
	}
	return unlock, err
}

// stillAt reports whether the directory open as f is still the one at
// path: a writer that waited for the lock may find that the holder
// removed it (an emit that failed removes the directories it created).
func stillAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// fallbackLock is the lock file of a directory that cannot be flocked.
const fallbackLock = ".swigen.lock"

// noDirLock reports whether err says the file system cannot flock a
// directory (as opposed to a lock that failed).
func noDirLock(err error) bool {
	return errors.Is(err, syscall.EBADF) || errors.Is(err, syscall.ENOLCK) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL)
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
