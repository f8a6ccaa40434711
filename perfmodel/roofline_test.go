package perfmodel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swigen/swigen/tiling"
)

func TestBwdRoofline(t *testing.T) {
	b200, _ := Lookup("b200")
	h200, _ := Lookup("H200")
	seed := tiling.Shape{M: 16384, K: 768, I: 4608}
	type want struct {
		R       Roofline
		Floor   float64
		Bound   string
		Unfused float64
	}
	tests := []struct {
		name string
		g    GPU
		s    tiling.Shape
		want want
	}{
		// FLOPs 2*M*K*I; bytes 2*(M*K + I*K + 4*M*I) = 2*(12582912 +
		// 3538944 + 301989888); the GEMM writes dout, 2*(M*K + I*K + M*I)
		// = 183238656 bytes; the elementwise kernel moves 10*M*I bytes.
		{"b200 seed", b200, seed, want{
			R: Roofline{FLOPs: 115964116992, Bytes: 636223488,
				ComputeUS: 115964116992 / 2250e6, MemoryUS: 636223488 / 8e6,
				GemmUS: 115964116992 / 2250e6, ElementwiseUS: 754974720 / 8e6},
			Floor: 636223488 / 8e6, Bound: "memory", Unfused: 115964116992/2250e6 + 754974720/8e6}},
		// LLaMA-3 8B's MLP, where the tensor rate binds: 2*8192*4096*14336
		// FLOPs against 2*(8192*4096 + 14336*4096 + 4*8192*14336) bytes.
		{"h200 llama-8b", h200, tiling.Shape{M: 8192, K: 4096, I: 14336}, want{
			R: Roofline{FLOPs: 962072674304, Bytes: 1124073472,
				ComputeUS: 962072674304 / 990e6, MemoryUS: 1124073472 / 4.8e6,
				GemmUS: 962072674304 / 990e6, ElementwiseUS: 1174405120 / 4.8e6},
			Floor: 962072674304 / 990e6, Bound: "compute", Unfused: 962072674304/990e6 + 1174405120/4.8e6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := BwdRoofline(tt.g, tt.s)
			got := want{R: r, Floor: r.FloorUS(), Bound: r.Bound(), Unfused: r.UnfusedUS()}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-12, 0)); d != "" {
				t.Errorf("BwdRoofline (-want +got):\n%s", d)
			}
		})
	}
}

func TestBwdCostStoreOut(t *testing.T) {
	s := tiling.Shape{M: 128, K: 64, I: 256}
	_, plain := BwdCost(s, false)
	_, withOut := BwdCost(s, true)
	if d := withOut - plain; d != 2*128*256 {
		t.Errorf("BwdCost: storing out adds %v bytes, want 2*M*I = %d", d, 2*128*256)
	}
}

func TestLookup(t *testing.T) {
	for _, n := range Names() {
		if g, ok := Lookup(n); !ok || g.SMs == 0 || g.TFLOPs == 0 || g.HBMTBs == 0 || g.Label == "" {
			t.Errorf("Lookup(%q) = %+v, %v: want a complete GPU", n, g, ok)
		}
	}
	if _, ok := Lookup("B200"); !ok {
		t.Error(`Lookup("B200"): want the case-insensitive match of b200`)
	}
	if _, ok := Lookup("a100"); ok {
		t.Error(`Lookup("a100"): want no such GPU`)
	}
}
