package emit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// sourcesOnly is an emit of one sm_90a kernel without a compiler.
func sourcesOnly(out string) *Options {
	return &Options{Out: out, NoCompile: true, Path: "fused", Request: pick.Request{
		Kernels: []string{string(tiling.KernelBwdDSwiGLU)}, Arches: []string{string(tiling.ArchSM90a)},
		DType: string(tiling.BF16), Shape: SeedShape,
		Changed: map[string]bool{"no-compile": true, "arch": true, "path": true}, Fields: map[string][]string{}}}
}

// TestRunThenDiff emits sources, finds them up to date, then finds an
// edited source stale and a deleted manifest missing.
func TestRunThenDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var log bytes.Buffer
	res, err := Run(context.Background(), sourcesOnly(dir), &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kernels) != 1 || res.Kernels[0].Build != nil {
		t.Fatalf("kernels: %+v", res.Kernels)
	}
	var out, notes bytes.Buffer
	res.Write(&out, &notes)
	name := res.Kernels[0].Artifact.Name
	if !strings.Contains(out.String(), "source only") || !strings.Contains(out.String(), "(index "+filepath.Join(dir, gen.IndexFile)+")") {
		t.Errorf("result:\n%s", out.String())
	}

	d, err := Diff(context.Background(), sourcesOnly(dir), &log)
	if err != nil || !d.UpToDate() {
		t.Fatalf("fresh emit: up to date %v, err %v, stale %+v", d != nil && d.UpToDate(), err, d)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".cu"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, name+".json")); err != nil {
		t.Fatal(err)
	}
	d, err = Diff(context.Background(), sourcesOnly(dir), &log)
	if err != nil {
		t.Fatal(err)
	}
	want := []StaleFile{{Name: name + ".cu", How: "changed"}, {Name: name + ".json", How: "missing"}}
	if diff := cmp.Diff(want, d.Stale); diff != "" || d.UpToDate() {
		t.Errorf("stale (-want +got):\n%s", diff)
	}
	if s := d.Summary(); !strings.Contains(s, "2 of 2 sources and manifests") || !strings.Contains(s, "run swigen emit with the same flags") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestUsageErrors: bad flags and configs are UsageErrors naming the
// command and the value, before anything is written.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"empty -o", func(o *Options) { o.Out = " " }, "emit: -o: empty output directory"},
		{"bad go package", func(o *Options) { o.GoPackage = "a-b" }, "emit: --go-package"},
		{"bad kernel", func(o *Options) { o.Kernels = []string{"nope"} }, "nope"},
		{"bad path", func(o *Options) { o.Path = "sideways" }, "sideways"},
	} {
		dir := t.TempDir()
		o := sourcesOnly(dir)
		tt.edit(o)
		err := Check(o)
		var u *UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want a UsageError with %q", tt.name, err, tt.want)
		}
		if _, err := Run(context.Background(), o, &bytes.Buffer{}); !errors.As(err, &u) {
			t.Errorf("%s: Run: err %v, want a UsageError", tt.name, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: wrote %d files", tt.name, len(ents))
		}
	}
}

// TestDiffNoIndex: diff without flags where no emit wrote is bad input.
func TestDiffNoIndex(t *testing.T) {
	t.Parallel()
	o := &Options{Out: filepath.Join(t.TempDir(), "nowhere")}
	_, err := Diff(context.Background(), o, &bytes.Buffer{})
	var u *UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "diff: no manifest.json") {
		t.Errorf("err %v, want a UsageError saying there is no index", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	bad := tiling.Config{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM90a, DType: tiling.BF16}
	if err := Validate([]tiling.Config{bad, bad}); err == nil || strings.Count(err.Error(), "config bwd_dswiglu_") != 2 {
		t.Errorf("two invalid configs: %v", err)
	}
	if err := Validate(nil); err != nil {
		t.Errorf("no configs: %v", err)
	}
}
