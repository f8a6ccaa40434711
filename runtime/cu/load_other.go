//go:build !(darwin || freebsd || linux || netbsd)

package cu

import (
	"errors"
	"fmt"
	"runtime"
)

// openLibrary fails: this binding loads libcuda through dlopen only.
func openLibrary(names []string) (uintptr, string, error) {
	return 0, "", fmt.Errorf("cu: init: dlopen is not supported on %s: %w", runtime.GOOS, ErrNoDriver)
}

func dlsym(h uintptr, name string) (uintptr, error) {
	return 0, errors.New("cu: dlsym is not supported on " + runtime.GOOS)
}
