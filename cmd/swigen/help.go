package main

import (
	"embed"
	"strings"
)

// The commands' long help texts, one file per command in help/, kept as
// text beside the code that wires the flags.
//
//go:embed help/*.txt
var helpFiles embed.FS

// longHelp is help/<name>.txt without its final newline.
func longHelp(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		// The files are embedded at build time: a missing one is a
		// typo in a command's definition, found by TestHelpTexts.
		return "(no help text: " + name + ")"
	}
	return strings.TrimSuffix(string(b), "\n")
}
