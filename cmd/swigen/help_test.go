package main

import (
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpTexts: every command's long help resolves (no "(no help text"
// placeholder from a misspelt name) and every file in help/ is some
// command's.
func TestHelpTexts(t *testing.T) {
	used := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if strings.Contains(c.Long, "(no help text") {
			t.Errorf("%s: %s", c.CommandPath(), c.Long)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
		used[c.Long] = true
	}
	walk(newRootCmd(&env{stdout: io.Discard, stderr: io.Discard}))
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help files: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "help/"), ".txt")
		if !used[longHelp(name)] {
			t.Errorf("%s is no command's long help", f)
		}
	}
	if got := longHelp("nope"); !strings.Contains(got, "(no help text") {
		t.Errorf("longHelp(nope) = %q", got)
	}
}
