package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: --version names what the binary was built from, "dev"
// only when nothing says.
func TestVersionOf(t *testing.T) {
	t.Parallel()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, tt := range []struct {
		name, linked, gitRev string
		bi                   *debug.BuildInfo
		want                 string
	}{
		{"link-time version", "v0.2.0", "", stamped("false"), "v0.2.0"},
		{"go install module@version", "dev", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.3"}}, "v0.1.3"},
		{"a build in a git checkout", "dev", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204171756-f9483e2e88f1+dirty"}}, "v0.0.0-20261204171756-f9483e2e88f1+dirty"},
		{"VCS stamp", "dev", "", stamped("false"), "dev 0123456789ab"},
		{"VCS stamp, modified tree", "dev", "", stamped("true"), "dev 0123456789ab+dirty"},
		{"link-time revision (bench/build.sh)", "dev", "abc1234", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev abc1234"},
		{"no build info", "dev", "", nil, "dev"},
		{"nothing stamped", "dev", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		if got := versionOf(tt.linked, tt.gitRev, tt.bi); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
