package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
)

// TestEmitDispatch: --path auto ships fwd_gateup training's unfused path
// at 8192,8192,14336 (the measured table has points where its unfused path
// won by more than tiling.RequiredMargin) as a dispatch plan in the index,
// the gemm marked unfused-only, and the elementwise source; unfused forces
// it; fused ships none; auto ships none for the seed's bwd_dswiglu, whose
// points all keep the fused kernel; a gemm the user asks for keeps its
// arch-dispatching Go launcher.
func TestEmitDispatch(t *testing.T) {
	t.Parallel()
	const shape = "8192,8192,14336"
	s, err := tiling.ParseShape(shape)
	if err != nil {
		t.Fatal(err)
	}
	up, _, err := tiling.HeuristicWhy(tiling.KernelFwdGateUp, tiling.ArchSM90a, tiling.BF16, s, true)
	if err != nil {
		t.Fatal(err)
	}
	train := []string{"--kernel", "fwd_gateup", "--store-out", "--shape", shape}
	for _, tt := range []struct {
		name      string
		args      []string
		wantPlans int
		wantForce tiling.Path
	}{
		{"auto", append([]string{"--path", "auto"}, train...), 1, ""},
		{"unfused", append([]string{"--path", "unfused"}, train...), 1, tiling.PathUnfused},
		{"fused", append([]string{"--path", "fused"}, train...), 0, ""},
		{"auto at the seed", []string{"--path", "auto"}, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, _, errOut := runCLI(t, append([]string{"emit", "--no-compile", "--go-package", "kernels", "--arch", "sm_90a", "-o", dir}, tt.args...)...)
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
			if d.Fused != up.Name() || d.Force != tt.wantForce || len(d.Points) == 0 || d.Elementwise != gen.ElementwiseCubin(tiling.ArchSM90a) {
				t.Errorf("plan %+v: want fused %s, force %q, points, the sm_90a elementwise cubin", d, up.Name(), tt.wantForce)
			}
			for _, k := range idx.Kernels {
				if (k.Name == d.Gemm) != k.UnfusedOnly {
					t.Errorf("%s: unfused_only %v", k.Name, k.UnfusedOnly)
				}
			}
			if !strings.Contains(errOut, "dispatch: "+up.Name()) {
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
