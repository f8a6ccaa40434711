package cu

import "syscall"

// threadID identifies the calling OS thread, so Context.Do can run f inline
// when called from the context's own locked thread instead of deadlocking.
func threadID() int { return syscall.Gettid() }
