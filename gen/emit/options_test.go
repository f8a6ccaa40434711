package emit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"github.com/swigen/swigen/tiling/pick"
)

// TestCommand: -o is recorded as ".", a relative --tuned relative to the
// output directory, an absolute one as given; lists are joined, --nvcc
// is left out, bools are --name or --name=false.
func TestCommand(t *testing.T) {
	t.Parallel()
	changed := map[string]bool{"out": true, "tuned": true, "schedule": true, "stages": true, "nvcc": true}
	fields := map[string][]string{"schedule": {"pingpong", "2cta"}, "stages": {"3"}}
	for _, tt := range []struct {
		name string
		o    Options
		want []string
	}{
		{"relative --tuned", Options{Out: "pkg/kernels", Request: pick.Request{Tuned: "tune.json", Fields: fields, Changed: changed}},
			[]string{"swigen", "emit", "--out=.", "--schedule=pingpong,2cta", "--stages=3", "--tuned=../../tune.json"}},
		{"absolute --tuned", Options{Out: "pkg/kernels", Request: pick.Request{Tuned: "/abs/tune.json", Fields: fields, Changed: changed}},
			[]string{"swigen", "emit", "--out=.", "--schedule=pingpong,2cta", "--stages=3", "--tuned=/abs/tune.json"}},
		{"bools", Options{Out: "x", NoCompile: true, Request: pick.Request{Changed: map[string]bool{"no-compile": true, "allow-spills": true}}},
			[]string{"swigen", "emit", "--allow-spills=false", "--no-compile", "--out=."}},
		{"nothing given", Options{Out: "out"}, []string{"swigen", "emit", "--out=."}},
	} {
		got, err := Command(&tt.o)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, err := Command(&Options{Request: pick.Request{Fields: map[string][]string{"nope": {"1"}}}}); err == nil {
		t.Error("a field flag that does not exist: no error")
	}
}

// TestCommandReadsBack: the recorded command parses back into the same
// options (what diff without flags relies on).
func TestCommandReadsBack(t *testing.T) {
	t.Parallel()
	args := []string{"--arch", "sm_90a", "--kernel", "gemm,fwd_down", "--stages", "3", "--no-compile", "--go-package", "k", "-o", "."}
	parse := func(args []string) *Options {
		o := &Options{}
		f := pflag.NewFlagSet("emit", pflag.ContinueOnError)
		AddFlags(f, o)
		if err := f.Parse(args); err != nil {
			t.Fatal(err)
		}
		o.ReadFlags(f)
		return o
	}
	first := parse(args)
	cmd, err := Command(first)
	if err != nil {
		t.Fatal(err)
	}
	again := parse(cmd[2:])
	if diff := cmp.Diff(first, again, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".TunedConfig" }, cmp.Ignore())); diff != "" {
		t.Errorf("read back (-first +again):\n%s", diff)
	}
	if first.RecordedMode() || !parse([]string{"--nvcc", "/x"}).RecordedMode() || !parse([]string{"-o", "d", "--nvcc", "/x"}).RecordedMode() {
		t.Error("RecordedMode: want false with flags, true with --nvcc and -o alone")
	}
}

func TestInsideDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "away")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "t.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		p    string
		want string // "" for an error
	}{
		{"t.json", filepath.Join(dir, "t.json")},
		{"sub/t.json", filepath.Join(dir, "sub", "t.json")},
		{"../t.json", ""},
		{"sub/../../t.json", ""},
		{"/etc/shadow", ""},
		{"away/t.json", ""},
		{"", ""},
	} {
		got, err := insideDir(dir, tt.p)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("insideDir(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
		}
	}
}
