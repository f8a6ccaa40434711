package perfmodel

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

var s1 = tiling.Shape{M: 16384, K: 768, I: 4608}

// TestCostSeedLedger pins the seed's FLOPs ledger at S1: forward 232 + 116
// = 348 GF, backward 116 + 116 + 232 + 232 = 696 GF (twice the forward).
func TestCostSeedLedger(t *testing.T) {
	t.Parallel()
	want := map[Segment]float64{FwdGateUp: 232, FwdDown: 116, BwdDSwiGLU: 116, DWDown: 116, DX: 232, DW: 232}
	got := map[Segment]float64{}
	var fwd, bwd float64
	for _, s := range Segments() {
		f := Cost(s, s1, false).FLOPs
		got[s] = math.Round(f / 1e9)
		if s.Forward() {
			fwd += f
		} else {
			bwd += f
		}
		// The FLOPs do not depend on where out comes from.
		if g := Cost(s, s1, true).FLOPs; g != f {
			t.Errorf("%s: FLOPs %g with recompute-out, %g without", s, g, f)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GF per segment (-want +got):\n%s", d)
	}
	if math.Round(fwd/1e9) != 348 || math.Round(bwd/1e9) != 696 || bwd != 2*fwd {
		t.Errorf("forward %.1f GF, backward %.1f GF; want 348 and 696 = 2x", fwd/1e9, bwd/1e9)
	}
}

// TestBytesSeedLedger checks the byte counts against the seed's numbers
// (in MiB): dout is 144 MiB, de and grad_de 288 MiB; the baseline's
// elementwise dSwiGLU reads dout + de and writes grad_de, and the fused
// segment saves exactly dout's round trip.
func TestBytesSeedLedger(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	dout := 2 * float64(s1.M*s1.I)
	if dout != 144*mib {
		t.Fatalf("dout %g MiB, want 144", dout/mib)
	}
	for _, rec := range []bool{false, true} {
		parts := BaselineParts(BwdDSwiGLU, s1, rec)
		wantEW := float64(144+288+288) * mib
		if rec {
			wantEW += 144 * mib
		}
		if parts[1].Bytes != wantEW {
			t.Errorf("recompute=%v: elementwise dSwiGLU %g MiB, want %g", rec, parts[1].Bytes/mib, wantEW/mib)
		}
		fused := Cost(BwdDSwiGLU, s1, rec).Bytes
		if d := parts[0].Bytes + parts[1].Bytes - fused; d != 2*dout {
			t.Errorf("recompute=%v: baseline - fused = %g MiB, want dout's round trip 288", rec, d/mib)
		}
		if rec && fused-Cost(BwdDSwiGLU, s1, false).Bytes != dout {
			t.Errorf("recomputing out must add one write of out")
		}
	}
	// Every segment's baseline moves at least the fused minimum, and the
	// baseline's FLOPs are the segment's.
	for _, s := range Segments() {
		c := Cost(s, s1, false)
		var fl, by float64
		for _, p := range BaselineParts(s, s1, false) {
			fl += p.FLOPs
			by += p.Bytes
		}
		if fl != c.FLOPs || by < c.Bytes {
			t.Errorf("%s: baseline %g FLOPs %g bytes; segment %g FLOPs, minimum %g bytes", s, fl, by, c.FLOPs, c.Bytes)
		}
	}
}

func TestActivations(t *testing.T) {
	t.Parallel()
	keptSave, saved0 := Activations(s1, false)
	keptRec, saved := Activations(s1, true)
	mi := 2 * float64(s1.M) * float64(s1.I)
	if saved0 != 0 || saved != mi || keptSave-keptRec != mi {
		t.Errorf("kept %g/%g saved %g/%g; want out = M*I*2 = %g saved", keptSave, keptRec, saved0, saved, mi)
	}
}

// TestFwdGateUpCost: training is the ledger's segment cost exactly (so
// tune's numbers agree with bench mlp's); inference drops de's writes.
func TestFwdGateUpCost(t *testing.T) {
	t.Parallel()
	sh := tiling.Shape{M: 16384, K: 768, I: 4608}
	M, K, I := float64(sh.M), float64(sh.K), float64(sh.I)
	seg := Cost(FwdGateUp, sh, false)
	for _, tt := range []struct {
		name    string
		storeDe bool
		want    Part
	}{
		{"training", true, seg},
		{"inference", false, Part{Name: seg.Name, FLOPs: 4 * M * K * I, Bytes: 2 * (M*K + 2*I*K + M*I)}},
	} {
		if diff := cmp.Diff(tt.want, FwdGateUpCost(sh, tt.storeDe)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// S1: 232 GFLOP; training moves 492 MB, inference 190 MB.
	if f := seg.FLOPs; f < 231.9e9 || f > 232.0e9 {
		t.Errorf("FLOPs = %g, want 232 GF", f)
	}
	if b := FwdGateUpCost(sh, true).Bytes; b < 492.2e6 || b > 492.4e6 {
		t.Errorf("training bytes = %g, want 492 MB", b)
	}
	if b := FwdGateUpCost(sh, false).Bytes; b < 190.2e6 || b > 190.4e6 {
		t.Errorf("inference bytes = %g, want 190 MB", b)
	}
}

func TestBwdCostSeedShape(t *testing.T) {
	// docs/DESIGN.md#flops-and-bytes: the seed shape is 116 GFLOP and 636 MB.
	f, b := BwdCost(s1, false)
	if f < 115.9e9 || f > 116.0e9 {
		t.Errorf("FLOPs = %g, want 116 GF", f)
	}
	if b < 636e6 || b > 636.3e6 {
		t.Errorf("bytes = %g, want 636 MB", b)
	}
}

// TestKernelCost: each kind's cost is its ledger segment's (tune's
// numbers agree with bench's and bench mlp's), a gemm's shape holds N in
// I's place, and fwd_down has no cost model.
func TestKernelCost(t *testing.T) {
	t.Parallel()
	bwd, bwdOut := Cost(BwdDSwiGLU, s1, false), Cost(BwdDSwiGLU, s1, true)
	gu, guInf := Cost(FwdGateUp, s1, false), FwdGateUpCost(s1, false)
	M, K, N := float64(s1.M), float64(s1.K), float64(s1.I)
	for _, tt := range []struct {
		kernel       tiling.Kernel
		storeOut     bool
		flops, bytes float64
		ok           bool
	}{
		{tiling.KernelBwdDSwiGLU, false, bwd.FLOPs, bwd.Bytes, true},
		{tiling.KernelBwdDSwiGLU, true, bwdOut.FLOPs, bwdOut.Bytes, true},
		{tiling.KernelFwdGateUp, true, gu.FLOPs, gu.Bytes, true},
		{tiling.KernelFwdGateUp, false, guInf.FLOPs, guInf.Bytes, true},
		{tiling.KernelGEMM, false, 2 * M * N * K, 2 * (M*K + N*K + M*N), true},
		{tiling.KernelFwdDown, false, 0, 0, false},
	} {
		f, b, ok := KernelCost(tt.kernel, s1, tt.storeOut)
		if f != tt.flops || b != tt.bytes || ok != tt.ok {
			t.Errorf("KernelCost(%s, storeOut=%v) = %g, %g, %v; want %g, %g, %v", tt.kernel, tt.storeOut, f, b, ok, tt.flops, tt.bytes, tt.ok)
		}
	}
	if f, b := GemmCost(8192, 8192, 8192); f != 2*8192.0*8192*8192 || b != 2*3*8192.0*8192 {
		t.Errorf("GemmCost(8192^3) = %g, %g", f, b)
	}
}

// TestRates: the ledger rows' rates at round numbers.
func TestRates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"1 TFLOP in 1 ms", TFLOPs(1e12, 1000), 1000},
		{"1 GB in 1 ms", GBs(1e9, 1000), 1000},
		{"floor 50 us of 200 us", PctOfFloor(50, 200), 25},
		{"at the floor", PctOfFloor(7, 7), 100},
	} {
		if math.Abs(tt.got-tt.want) > 1e-9*tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
