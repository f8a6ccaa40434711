//go:build darwin || freebsd || linux || netbsd

package cu

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
)

// openLibrary dlopens the first of names that loads and returns its handle
// and name.
func openLibrary(names []string) (uintptr, string, error) {
	var tried []string
	for _, n := range names {
		h, err := dlopen(n)
		if err == nil && h != 0 {
			return h, n, nil
		}
		msg := "dlopen failed"
		if err != nil && err.Error() != "" {
			msg = err.Error()
		}
		if !strings.HasPrefix(msg, n+":") { // glibc's dlerror names the file itself
			msg = n + ": " + msg
		}
		tried = append(tried, msg)
	}
	return 0, "", fmt.Errorf("cu: init: %w (is the NVIDIA driver installed? tried %s)", ErrNoDriver, strings.Join(tried, "; "))
}

// dlopen loads name with the calling goroutine locked to its OS thread:
// dlerror's message is thread-local, and purego reads it in a second call
// after the failing dlopen, which without the lock may run on another
// thread and return an empty (or a stale) message.
func dlopen(name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlsym(h, name)
}
