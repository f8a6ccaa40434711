package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/emit"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// parseEmit runs the emit command's flag parsing only and returns the
// options its action would get (gh's runF pattern).
func parseEmit(t *testing.T, args ...string) (*emitOptions, error) {
	t.Helper()
	var got *emitOptions
	cmd := newEmitCmd(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, func(_ context.Context, o *emitOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		return nil, err
	}
	return got, nil
}

func TestEmitFlags(t *testing.T) {
	t.Parallel()
	defaults := emitOptions{
		Request: pick.Request{Kernels: []string{"bwd_dswiglu"}, Arches: []string{"sm_100a", "sm_90a"}, DType: "bf16",
			Shape: seedShape, Changed: map[string]bool{}, Fields: map[string][]string{}},
		Out: "out", Path: "auto",
	}
	with := func(f func(o *emitOptions)) emitOptions {
		o := defaults
		o.Changed, o.Fields = map[string]bool{}, map[string][]string{}
		f(&o)
		return o
	}
	for _, tt := range []struct {
		name string
		args []string
		want emitOptions
	}{
		{"no flags", nil, defaults},
		{"arch repeated", []string{"--arch", "sm_90a", "--arch", "sm_100a"}, with(func(o *emitOptions) {
			o.Arches = []string{"sm_90a", "sm_100a"}
			o.Changed["arch"] = true
		})},
		{"arch comma list", []string{"--arch=sm_90a,sm_100a"}, with(func(o *emitOptions) {
			o.Arches = []string{"sm_90a", "sm_100a"}
			o.Changed["arch"] = true
		})},
		{"every field flag", []string{
			"--tile", "128x256x64", "--stages", "4", "--cluster", "2x1", "--schedule", "pingpong,2cta",
			"--scheduler", "static", "--raster", "n", "--swizzle-group", "4", "--epi", "64x32",
			"--epi-stages", "3", "--major-a", "k", "--major-b", "mn", "--store-out", "--l2k", "--clc-stages", "2",
		}, with(func(o *emitOptions) {
			o.Fields = map[string][]string{
				"tile": {"128x256x64"}, "stages": {"4"}, "cluster": {"2x1"}, "schedule": {"pingpong", "2cta"},
				"scheduler": {"static"}, "raster": {"n"}, "swizzle-group": {"4"}, "epi": {"64x32"},
				"epi-stages": {"3"}, "major-a": {"k"}, "major-b": {"mn"}, "store-out": {"true"}, "l2k": {"true"}, "clc-stages": {"2"},
			}
			for f := range o.Fields {
				o.Changed[f] = true
			}
		})},
		{"output and compiler", []string{"-o", "/tmp/x", "--nvcc", "/opt/cuda/bin", "--no-compile", "--allow-spills"}, with(func(o *emitOptions) {
			o.Out, o.NVCC, o.NoCompile, o.AllowSpills = "/tmp/x", "/opt/cuda/bin", true, true
			for _, f := range []string{"out", "nvcc", "no-compile", "allow-spills"} {
				o.Changed[f] = true
			}
		})},
		{"selection", []string{"--kernel", "gemm", "--dtype", "fp16", "--shape", "1,2,3", "--name", "n", "--catalog"}, with(func(o *emitOptions) {
			o.Kernels, o.DType, o.Shape, o.Name, o.Catalog = []string{"gemm"}, "fp16", "1,2,3", "n", true
			for _, f := range []string{"kernel", "dtype", "shape", "name", "catalog"} {
				o.Changed[f] = true
			}
		})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseEmit(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func heuristic(t *testing.T, a tiling.Arch) tiling.Config {
	t.Helper()
	s, err := tiling.ParseShape(seedShape)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, a, tiling.BF16, s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmitConfigs(t *testing.T) {
	t.Parallel()
	h90, h100 := heuristic(t, tiling.ArchSM90a), heuristic(t, tiling.ArchSM100a)
	cat := tiling.Catalog()
	if len(cat) == 0 {
		t.Fatal("empty catalog")
	}
	mod := func(c tiling.Config, f func(c *tiling.Config)) tiling.Config {
		f(&c)
		return c
	}
	var cat90 []tiling.Config
	for _, c := range cat {
		if c.Arch == tiling.ArchSM90a {
			cat90 = append(cat90, c)
		}
	}
	for _, tt := range []struct {
		name      string
		args      []string
		want      []tiling.Config
		wantNotes []string
		wantErr   string
	}{
		{"defaults are the seed heuristic for both archs", nil, []tiling.Config{h100, h90}, nil, ""},
		{"one arch", []string{"--arch", "90a"}, []tiling.Config{h90}, nil, ""},
		{"stages override only stages", []string{"--arch", "sm_90a", "--stages", "3"},
			[]tiling.Config{mod(h90, func(c *tiling.Config) { c.Stages = 3 })}, nil, ""},
		{"tile and cluster", []string{"--arch", "sm_90a", "--tile", "128x64x64", "--cluster", "1x2"},
			[]tiling.Config{mod(h90, func(c *tiling.Config) { c.TileM, c.TileN, c.TileK, c.ClusterM, c.ClusterN = 128, 64, 64, 1, 2 })}, nil, ""},
		{"schedule applied where legal", []string{"--schedule", "cooperative"},
			[]tiling.Config{h100, mod(h90, func(c *tiling.Config) { c.Schedule = tiling.Cooperative })},
			[]string{"does not apply to sm_100a"}, ""},
		{"one schedule per arch", []string{"--schedule", "cooperative,1cta"},
			[]tiling.Config{
				mod(h100, func(c *tiling.Config) {
					c.Schedule = tiling.OneCTA
					c.EpiM, c.EpiN, _ = tiling.DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
				}),
				mod(h90, func(c *tiling.Config) { c.Schedule = tiling.Cooperative }),
			}, nil, ""},
		{"two schedules for one arch", []string{"--schedule", "cooperative,pingpong"}, nil, nil, "give one per arch"},
		{"epilogue and majors", []string{"--arch", "sm_90a", "--epi", "64x128", "--epi-stages", "3", "--major-b", "mn", "--store-out", "--raster", "n", "--swizzle-group", "4", "--scheduler", "static"},
			[]tiling.Config{mod(h90, func(c *tiling.Config) {
				// --store-out starts from tiling.HeuristicStoreOut: 128x128
				// (not the wide tile) and the deepest ring that fits beside
				// out's buffers.
				c.TileN = 128
				c.EpiM, c.EpiN, c.EpiStages, c.MajorB, c.StoreOut, c.Stages = 64, 128, 3, tiling.MNMajor, true, 4
				c.Raster, c.SwizzleGroup, c.Scheduler = tiling.RasterN, 4, tiling.StaticScheduler
			})}, nil, ""},
		{"l2k off", []string{"--arch", "sm_90a", "--l2k=false"},
			[]tiling.Config{mod(h90, func(c *tiling.Config) { c.L2KeepOperands = false })}, nil, ""},
		{"clc ring", []string{"--arch", "sm_100a", "--scheduler", "clc", "--clc-stages", "4"},
			[]tiling.Config{mod(h100, func(c *tiling.Config) { c.Scheduler, c.CLCStages = tiling.CLCScheduler, 4 })}, nil, ""},
		{"clc ring default", []string{"--arch", "sm_100a", "--scheduler", "clc", "--clc-stages", "3"},
			[]tiling.Config{mod(h100, func(c *tiling.Config) { c.Scheduler = tiling.CLCScheduler })}, nil, ""},
		{"bad epi", []string{"--epi", "64"}, nil, nil, `--epi "64"`},
		{"every bad value reported", []string{"--tile", "1x1", "--cluster", "9", "--major-a", "row"}, nil, nil, "parse major"},
		{"name", []string{"--name", cat[0].Name()}, []tiling.Config{cat[0]}, nil, ""},
		{"name with a field flag", []string{"--name", cat[0].Name(), "--stages", "2"}, nil, nil,
			"--name " + cat[0].Name() + " fixes every field of the config; it cannot be combined with --stages"},
		{"bad name", []string{"--name", "nope"}, nil, nil, "nope"},
		{"catalog", []string{"--catalog"}, cat, nil, ""},
		{"catalog filtered", []string{"--catalog", "--arch", "sm_90a"}, cat90, nil, ""},
		{"bad shape", []string{"--shape", "1,2"}, nil, nil, "shape"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseEmit(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			got, notes, err := o.configs()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("configs (-want +got):\n%s", diff)
			}
			if len(notes) != len(tt.wantNotes) {
				t.Errorf("notes = %q, want %d containing %q", notes, len(tt.wantNotes), tt.wantNotes)
			}
			for i := range min(len(notes), len(tt.wantNotes)) {
				if !strings.Contains(notes[i], tt.wantNotes[i]) {
					t.Errorf("note %q lacks %q", notes[i], tt.wantNotes[i])
				}
			}
		})
	}
}

func TestEmitInvalidConfig(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runCLI(t, "emit", "--tile", "100x100x10", "--stages", "50", "-o", dir)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if out != "" {
		t.Errorf("stdout not empty:\n%s", out)
	}
	// Both archs' configs are reported, each with every broken field.
	for _, a := range []string{"sm90a", "sm100a"} {
		if !strings.Contains(errOut, "config bwd_dswiglu_"+a+"_bf16_m100n100k10_s50") {
			t.Errorf("stderr does not name the %s config:\n%s", a, errOut)
		}
	}
	for _, f := range []string{"tile_m=100", "tile_n=100", "tile_k=10", "stages=50"} {
		if n := strings.Count(errOut, f); n != 2 {
			t.Errorf("stderr lists %q %d times, want 2 (once per arch):\n%s", f, n, errOut)
		}
	}
	if strings.Contains(errOut, "Usage:") {
		t.Errorf("usage printed for an invalid config:\n%s", errOut)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output dir created for an invalid config (stat: %v)", err)
	}
}

// renderable skips the test when gen.Render cannot yet render cfgs (a
// kernel template not written yet); every other error fails.
func renderable(t *testing.T, cfgs ...tiling.Config) {
	t.Helper()
	for _, c := range cfgs {
		if _, err := gen.RenderAll([]tiling.Config{c}); err != nil {
			if strings.Contains(err.Error(), "not implemented") {
				t.Skipf("render of %s not implemented yet: %v", c.Name(), err)
			}
			t.Fatalf("render %s: %v", c.Name(), err)
		}
	}
}

// libraryOf names the CUDA library's files an emit of cfgs writes beside
// its sources: all of them when a config renders a thin unit, else none.
func libraryOf(t *testing.T, cfgs ...tiling.Config) []string {
	t.Helper()
	arts, err := gen.RenderAll(cfgs)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	for _, a := range arts {
		if a.Include == nil {
			continue
		}
		var names []string
		err := fs.WalkDir(a.Include, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, p)
			}
			return err
		})
		if err != nil {
			t.Fatalf("the CUDA library: %v", err)
		}
		return names
	}
	return nil
}

func TestEmitNoCompile(t *testing.T) {
	t.Parallel()
	h90, h100 := heuristic(t, tiling.ArchSM90a), heuristic(t, tiling.ArchSM100a)
	for _, tt := range []struct {
		name string
		args []string
		cfgs []tiling.Config
	}{
		{"sm_90a", []string{"--arch", "sm_90a"}, []tiling.Config{h90}},
		{"default: both archs", nil, []tiling.Config{h100, h90}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			renderable(t, tt.cfgs...)
			dir := filepath.Join(t.TempDir(), "out")
			args := append([]string{"emit", "--no-compile", "--path", "fused", "-o", dir}, tt.args...)
			code, out, errOut := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errOut)
			}
			want := append([]string{gen.IndexFile}, libraryOf(t, tt.cfgs...)...)
			for _, c := range tt.cfgs {
				want = append(want, c.Name()+".cu", c.Name()+".json")
				if !strings.Contains(out, c.Name()) {
					t.Errorf("stdout does not name %s:\n%s", c.Name(), out)
				}
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if !strings.Contains(out, "files written, 0 unchanged") {
				t.Errorf("no summary line:\n%s", out)
			}
			// Again: nothing changes on disk.
			code, out, errOut = runCLI(t, args...)
			if code != exitOK || !strings.Contains(out, " 0 files written") {
				t.Errorf("second emit: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}

// TestEmitCompile builds the seed kernels with the real compiler when one
// is installed.
func TestEmitCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with nvcc; skipped in -short mode")
	}
	if _, err := toolchain.Find(toolchain.FindOptions{}); err != nil {
		t.Skipf("no CUDA compiler: %v", err)
	}
	h90, h100 := heuristic(t, tiling.ArchSM90a), heuristic(t, tiling.ArchSM100a)
	for _, tt := range []struct {
		name string
		args []string
		cfgs []tiling.Config
		want []string
	}{
		{"sm_90a", []string{"--arch", "sm_90a"}, []tiling.Config{h90}, nil},
		{"default: both archs", nil, []tiling.Config{h90, h100}, []string{emit.SM100Note}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			renderable(t, tt.cfgs...)
			dir := t.TempDir()
			code, out, errOut := runCLI(t, append([]string{"emit", "-o", dir}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errOut)
			}
			for _, w := range append([]string{"regs ", "spills ", "stack ", "smem "}, tt.want...) {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, c := range tt.cfgs {
				if !strings.Contains(out, c.Name()) {
					t.Errorf("stdout does not name %s:\n%s", c.Name(), out)
				}
				for _, f := range []string{c.Name() + "." + string(c.Arch) + ".cubin", c.Name() + ".report.json"} {
					if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

// TestEmitNoCompiler points --nvcc-free discovery at nothing: sources are
// still written, the message says how to get a compiler, and exit is 0.
func TestEmitNoCompiler(t *testing.T) {
	h90 := heuristic(t, tiling.ArchSM90a)
	renderable(t, h90)
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	t.Setenv("CUDA_HOME", empty)
	t.Setenv("SWIGEN_CUDA_VENV", empty)
	t.Setenv("VIRTUAL_ENV", empty)
	t.Setenv("HOME", empty)
	if _, err := toolchain.Find(toolchain.FindOptions{}); !errors.Is(err, toolchain.ErrNoCompiler) {
		t.Skipf("a compiler is still found outside the environment's search paths: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runCLI(t, "emit", "--arch", "sm_90a", "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "pip install") || !strings.Contains(errOut, "sources and manifests only") {
		t.Errorf("stderr does not say how to get a compiler:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, h90.Name()+".cu")); err != nil {
		t.Error(err)
	}
}

func TestEmitSeveralKinds(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"emit", "--kernel", "gemm,bwd_dswiglu", "--kernel", "fwd_down", "--arch", "sm_90a", "--no-compile", "-o", dir}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
	for _, k := range []string{"gemm_sm90a", "bwd_dswiglu_sm90a", "fwd_down_sm90a"} {
		m, err := filepath.Glob(filepath.Join(dir, k+"_*.cu"))
		if err != nil || len(m) != 1 {
			t.Errorf("%s: want one source, got %v (%v)", k, m, err)
		}
	}
	if code := run([]string{"emit", "--kernel", "nope", "--no-compile", "-o", t.TempDir()}, &out, &errb); code != exitUsage && code != exitFailure {
		t.Errorf("unknown kernel: exit %d", code)
	}
}
