//go:build darwin || freebsd || linux || netbsd

package cu

import (
	"fmt"
	"strings"

	"github.com/ebitengine/purego"
)

// openLibrary dlopens the first of names that loads and returns its handle
// and name.
func openLibrary(names []string) (uintptr, string, error) {
	var tried []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil && h != 0 {
			return h, n, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", n, err))
	}
	return 0, "", fmt.Errorf("cu: init: %w (is the NVIDIA driver installed? tried %s)", ErrNoDriver, strings.Join(tried, "; "))
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }
