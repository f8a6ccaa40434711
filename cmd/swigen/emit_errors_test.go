package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/emit"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// TestEmitTileAlone: --tile alone over both archs' heuristics is accepted;
// sm_100a's 2cta, which needs tile M 256, gives way to 1cta with a note.
func TestEmitTileAlone(t *testing.T) {
	t.Parallel()
	o, err := parseEmit(t, "--tile", "128x128x64")
	if err != nil {
		t.Fatal(err)
	}
	cfgs, notes, err := o.configs()
	if err != nil {
		t.Fatal(err)
	}
	if err := emit.Validate(cfgs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfgs {
		got = append(got, c.Name())
	}
	want := []string{"bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g4_l2k"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configs (-want +got):\n%s", diff)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "schedule 1cta instead of 2cta") {
		t.Errorf("notes %q, want one saying 2cta gave way to 1cta", notes)
	}
	// An explicit schedule stays: 2cta cannot take the tile.
	o, _ = parseEmit(t, "--tile", "128x128x64", "--schedule", "2cta", "--arch", "sm_100a")
	if cfgs, _, err = o.configs(); err != nil {
		t.Fatal(err)
	}
	if err := emit.Validate(cfgs); err == nil || !strings.Contains(err.Error(), "tile_m=128: must be 256 for 2cta") {
		t.Errorf("--schedule 2cta --tile 128x128x64: validate = %v, want the 2cta tile rule", err)
	}
}

// TestEmitUsageBeforeCompile checks that every bad config or flag
// combination is exit 2 before a compiler is looked for (--nvcc names
// none, which would be exit 1), and that nothing is written.
func TestEmitUsageBeforeCompile(t *testing.T) {
	t.Parallel()
	cat := tiling.Catalog()[0].Name()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr []string
	}{
		{"render-time rule", []string{"--kernel", "gemm", "--schedule", "overlap"}, []string{"exit", "overlap is implemented for bwd_dswiglu"}},
		{"empty -o", []string{"-o", ""}, []string{"-o: empty output directory"}},
		{"-o is a file", []string{"-o", file}, []string{"-o " + file + ": exists and is not a directory"}},
		{"--name with --tile", []string{"--name", cat, "--tile", "128x128x64"}, []string{"--name " + cat, "--tile"}},
		{"zero stages", []string{"--stages", "0"}, []string{"--stages 0: must be positive"}},
		{"negative swizzle group", []string{"--swizzle-group", "-2"}, []string{"--swizzle-group -2: must be positive"}},
		{"bad go package", []string{"--go-package", "Bad-Name"}, []string{"--go-package"}},
		{"invalid tile", []string{"--tile", "100x100x10"}, []string{"tile_m=100"}},
	} {
		for _, cmd := range []string{"emit", "diff"} {
			t.Run(cmd+" "+tt.name, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "out")
				args := append([]string{cmd, "--nvcc", "/nonexistent/nvcc", "-o", out}, tt.args...)
				code, stdout, errOut := runCLI(t, args...)
				if code != exitUsage {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, errOut)
				}
				for _, w := range tt.wantErr {
					if w != "exit" && !strings.Contains(errOut, w) {
						t.Errorf("stderr lacks %q:\n%s", w, errOut)
					}
				}
				if strings.Contains(errOut, "compiling") || stdout != "" {
					t.Errorf("something ran: stdout %q, stderr:\n%s", stdout, errOut)
				}
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("output directory created (stat: %v)", err)
				}
			})
		}
	}
}

// noCompiler points compiler discovery at an empty directory; it skips
// the test when a compiler is still found.
func noCompiler(t *testing.T) {
	t.Helper()
	empty := t.TempDir()
	for _, v := range []string{"PATH", "CUDA_HOME", "SWIGEN_CUDA_VENV", "VIRTUAL_ENV", "HOME"} {
		t.Setenv(v, empty)
	}
	if _, err := toolchain.Find(toolchain.FindOptions{}); !errors.Is(err, toolchain.ErrNoCompiler) {
		t.Skipf("a compiler is still found outside the environment's search paths: %v", err)
	}
}

// TestEmitGoPackageNoCompiler: --go-package without a compiler fails
// (exit 1, nothing written, the message says how to get one) unless
// --no-compile asks for bindings without cubins.
func TestEmitGoPackageNoCompiler(t *testing.T) {
	noCompiler(t)
	dir := filepath.Join(t.TempDir(), "kernels")
	code, _, errOut := runCLI(t, "emit", "--arch", "sm_90a", "--go-package", "kernels", "-o", dir)
	if code != exitFailure {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailure, errOut)
	}
	for _, w := range []string{"--go-package needs the CUDA compiler", "--no-compile", "pip install", "nothing written"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output directory created (stat: %v)", err)
	}

	code, _, errOut = runCLI(t, "emit", "--arch", "sm_90a", "--go-package", "kernels", "--no-compile", "-o", dir)
	if code != exitOK || !strings.Contains(errOut, "gets no cubins") {
		t.Fatalf("--no-compile: exit %d, stderr:\n%s", code, errOut)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(m) == 0 {
		t.Error("--no-compile wrote no Go bindings")
	}
}

// TestEmitWriteFailureCLI: a directory where manifest.json goes fails the
// emit (exit 1) and leaves every earlier file as it was.
func TestEmitWriteFailureCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"emit", "--no-compile", "-o", dir}
	if code, _, errOut := runCLI(t, args...); code != exitOK {
		t.Fatalf("first emit: exit %d:\n%s", code, errOut)
	}
	// Stale every file but the index, then put a directory in its place.
	before := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.Name() == gen.IndexFile {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			before[e.Name()+"/"] = ""
			continue
		}
		if err := os.WriteFile(p, []byte("old "+e.Name()), 0o644); err != nil {
			t.Fatal(err)
		}
		before[e.Name()] = "old " + e.Name()
	}
	code, _, errOut := runCLI(t, args...)
	if code != exitFailure || !strings.Contains(errOut, "nothing written") || !strings.Contains(errOut, "a directory is where this output file goes") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailure, errOut)
	}
	after := map[string]string{}
	ents, _ = os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			after[e.Name()+"/"] = ""
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		after[e.Name()] = string(b)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("output directory after the failed emit (-before +after):\n%s", diff)
	}
}
