package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at link time:
//
//	go build -ldflags "-X main.version=v0.1.0" ./cmd/swigen
var version = "dev"

// versionString is the one-line version, also used by --version.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionOf(version, gitRevision, bi)
}

// versionOf is the version a binary reports: the link-time version when
// set; else the module version Go recorded (module@v1.2.3, or the
// pseudo-version of a build in a git checkout, naming its commit); else
// "dev" with the commit it was built from, the VCS stamp's
// (vcs.revision, "+dirty" when vcs.modified) or the link-time one
// (bench/build.sh); plain "dev" only without either. bi may be nil.
func versionOf(linked, gitRev string, bi *debug.BuildInfo) string {
	if linked != "dev" {
		return linked
	}
	rev, dirty := gitRev, ""
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && s.Value != "":
				rev = s.Value[:min(12, len(s.Value))]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	return "dev " + rev + dirty
}

// buildInfo describes the binary: Go version, module and VCS stamp.
func buildInfo() string {
	var b strings.Builder
	fmt.Fprintf(&b, "swigen %s\n", version)
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		b.WriteString("build info: unavailable (not built in module mode)\n")
		return b.String()
	}
	fmt.Fprintf(&b, "go:      %s\n", bi.GoVersion)
	fmt.Fprintf(&b, "module:  %s %s\n", bi.Main.Path, bi.Main.Version)
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	if rev != "" {
		fmt.Fprintf(&b, "commit:  %s%s %s\n", rev, modified, when)
	}
	if gitRevision != "" {
		// The link-time stamp (bench/build.sh): what bench records carry,
		// also where the build had no VCS stamp (a worktree, -buildvcs=false).
		fmt.Fprintf(&b, "revision: %s\n", gitRevision)
	}
	return b.String()
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the swigen version and build information",
		Long:  longHelp("version"),
		Example: `  swigen version
  swigen --version`,
		GroupID: groupInfo,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprint(e.stdout, buildInfo())
			return err
		},
	}
}
