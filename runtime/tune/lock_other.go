//go:build !unix

package tune

// lockDir does nothing where flock is unavailable: concurrent tuners on
// one DB are not supported there (the writes stay atomic).
func lockDir(dir string) (unlock func(), err error) {
	return func() {}, nil
}

// readLockDir does nothing where flock is unavailable; readers rely on
// the atomic rename of the writes.
func readLockDir(dir string) (unlock func(), err error) {
	return func() {}, nil
}
