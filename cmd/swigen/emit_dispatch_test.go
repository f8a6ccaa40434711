package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
)

// TestEmitDispatch: --path auto ships the heuristic bwd_dswiglu's unfused
// path (the measured table has an unfused point for it and its gemm) as a
// dispatch plan in the index, the gemm marked unfused-only, and the
// elementwise source; unfused forces it; fused ships none; a gemm the
// user asks for keeps its arch-dispatching Go launcher.
func TestEmitDispatch(t *testing.T) {
	t.Parallel()
	h90 := heuristic(t, tiling.ArchSM90a)
	for _, tt := range []struct {
		path      string
		wantPlans int
		wantForce tiling.Path
	}{{"auto", 1, ""}, {"unfused", 1, tiling.PathUnfused}, {"fused", 0, ""}} {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, _, errOut := runCLI(t, "emit", "--no-compile", "--go-package", "kernels", "--arch", "sm_90a", "--path", tt.path, "-o", dir)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, errOut)
			}
			idx := readIndex(t, dir)
			if len(idx.Dispatch) != tt.wantPlans {
				t.Fatalf("%d dispatch plans, want %d: %+v", len(idx.Dispatch), tt.wantPlans, idx.Dispatch)
			}
			_, errSrc := os.Stat(filepath.Join(dir, gen.ElementwiseSource))
			if (errSrc == nil) != (tt.wantPlans > 0) {
				t.Errorf("%s present: %v, want %v", gen.ElementwiseSource, errSrc == nil, tt.wantPlans > 0)
			}
			if tt.wantPlans == 0 {
				return
			}
			d := idx.Dispatch[0]
			if d.Fused != h90.Name() || d.Force != tt.wantForce || len(d.Points) == 0 || d.Elementwise != gen.ElementwiseCubin(tiling.ArchSM90a) {
				t.Errorf("plan %+v: want fused %s, force %q, points, the sm_90a elementwise cubin", d, h90.Name(), tt.wantForce)
			}
			for _, k := range idx.Kernels {
				if (k.Name == d.Gemm) != k.UnfusedOnly {
					t.Errorf("%s: unfused_only %v", k.Name, k.UnfusedOnly)
				}
			}
			if !strings.Contains(errOut, "dispatch: "+h90.Name()) {
				t.Errorf("emit does not say it ships the unfused path:\n%s", errOut)
			}
		})
	}
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "emit", "--no-compile", "--go-package", "kernels", "--arch", "sm_90a", "--kernel", "gemm,bwd_dswiglu", "--tile", "128x128x64", "-o", dir); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "swigen_bindings.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "func LoadGemm(") {
		t.Errorf("the asked-for gemm lost its arch-dispatching launcher to the plan's unfused gemm")
	}
}
