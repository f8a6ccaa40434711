package tiling

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDebugVariantNames(t *testing.T) {
	base, err := Heuristic(KernelBwdDSwiGLU, ArchSM90a, BF16, Shape{M: 4096, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Debugs() {
		c := base
		c.Debug = d
		name := c.Name()
		if !strings.HasSuffix(name, "_dbg"+string(d)) {
			t.Errorf("%s: name lacks the debug suffix", name)
		}
		got, err := ParseName(name)
		if err != nil {
			t.Fatalf("ParseName(%s): %v", name, err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if ok, why := Implemented(c); !ok {
			t.Errorf("%s: not implemented: %s", name, why)
		}
	}
	if _, err := ParseName(base.Name() + "_dbgbogus"); err == nil {
		t.Error("ParseName accepted an unknown debug variant")
	}
	bad := base
	bad.Debug = "bogus"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "debug") {
		t.Errorf("Validate(debug=bogus) = %v, want a debug problem", err)
	}
	for _, c := range append(Catalog(), Space(KernelBwdDSwiGLU, ArchSM90a, BF16)...) {
		if c.Debug != DebugNone {
			t.Errorf("%s: debug variants must never be in Space or Catalog", c.Name())
		}
	}
}

func TestFastSigmoidOption(t *testing.T) {
	c, err := Heuristic(KernelBwdDSwiGLU, ArchSM90a, BF16, Shape{M: 4096, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	c.FastSigmoid = true
	if !strings.Contains(c.Name(), "_tanh") {
		t.Errorf("%s: want the _tanh suffix", c.Name())
	}
	got, err := ParseName(c.Name())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("%s: %v", c.Name(), err)
	}
	g := c
	g.Kernel = KernelGEMM
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "fast_sigmoid") {
		t.Errorf("Validate(gemm with FastSigmoid) = %v, want a fast_sigmoid problem", err)
	}
}

// TestDebugResultsRight pins which variants compute right results (the
// ones bench mlp --name and other timing paths may use in place of the
// normal kernel) and which are broken or partial by design.
func TestDebugResultsRight(t *testing.T) {
	got := map[Debug]bool{DebugNone: DebugNone.ResultsRight()}
	for _, d := range Debugs() {
		got[d] = d.ResultsRight()
	}
	want := map[Debug]bool{
		DebugNone: true, DebugNoMulticast: true, DebugTrace: true, DebugDirectStore: true, DebugPermStore: true,
		DebugHang: false, DebugNoEpilogue: false, DebugNoMainloop: false,
		DebugNoEpiLoad: false, DebugNoEpiStore: false, DebugNoEpiSmem: false, DebugEpiOnly: false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResultsRight (-want +got):\n%s", diff)
	}
}
