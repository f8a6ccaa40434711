//go:build !linux

package cu

// threadID returns -1: without a thread id, nested Context.Do calls from the
// context goroutine are not detected.
func threadID() int { return -1 }
