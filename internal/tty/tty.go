// Package tty answers one question for swigen's progress output: is this
// writer a terminal? Progress meant for a person (emit's per-compile
// lines, tune's bar) goes to a terminal only; a log or a pipe gets the
// summaries.
package tty

import (
	"io"
	"os"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}
