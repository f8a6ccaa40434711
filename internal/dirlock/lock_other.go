//go:build !unix

package dirlock

// Lock does nothing where flock is unavailable: concurrent tuners on
// one DB are not supported there (the writes stay atomic).
func Lock(dir string) (unlock func(), err error) {
	return func() {}, nil
}

// RLock does nothing where flock is unavailable; readers rely on
// the atomic rename of the writes.
func RLock(dir string) (unlock func(), err error) {
	return func() {}, nil
}

// TryLock cannot tell a held directory where flock is unavailable: it
// reports every directory busy, so nothing is taken for abandoned.
func TryLock(dir string) (unlock func(), err error) {
	return nil, ErrBusy
}
