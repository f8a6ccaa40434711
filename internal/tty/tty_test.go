package tty

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestIsTerminal: a buffer, a pipe and /dev/null (a character device) are
// no terminal; a pseudo-terminal is.
func TestIsTerminal(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, f := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "pipe": w, "dev null": null} {
		if IsTerminal(f) {
			t.Errorf("%s: a terminal", name)
		}
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Logf("no pseudo-terminal to check against: %v", err)
		return
	}
	defer pty.Close()
	if !IsTerminal(pty) {
		t.Error("/dev/ptmx: not a terminal")
	}
}
