// Package dirlock serialises the processes that write into one directory
// (an emit's output directory, a results DB's directory) with a flock on
// the directory itself: the kernel drops it when its holder dies, kill -9
// included, so a crashed writer never leaves a stale lock.
package dirlock

import "errors"

// ErrReplaced is Lock's error when the directory was removed or replaced
// while Lock waited for it: the caller makes it again and retries.
var ErrReplaced = errors.New("directory removed or replaced while waiting for its lock")

// ErrBusy is TryLock's error when another holder has the directory.
var ErrBusy = errors.New("directory locked by another process")
