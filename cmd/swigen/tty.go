package main

import (
	"io"
	"os"
)

// isTerminal reports whether w is a terminal: swigen emit's per-kernel
// progress lines go to stderr only then (a log or a pipe gets the
// summary, not the lines). env.stderrTTY carries the answer, so tests
// decide it without a pty.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}
