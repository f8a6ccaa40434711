package tiling

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLimitsFor(t *testing.T) {
	t.Parallel()
	for _, a := range Arches() {
		l, err := LimitsFor(a)
		if err != nil {
			t.Fatalf("LimitsFor(%s): %v", a, err)
		}
		if l.SmemPerBlock != 232448 || l.MaxClusterSize != 8 || l.SwizzleBytes != 128 {
			t.Errorf("%s: unexpected common limits %+v", a, l)
		}
		for _, d := range DTypes() {
			for _, g := range []int{1, 2} {
				s, ok := l.MMAFor(d, g)
				if !ok || s.K != 16 {
					t.Errorf("%s %s group %d: MMAFor = %+v, %v", a, d, g, s, ok)
				}
			}
		}
		// Mutating a result must not leak into the next call.
		l.MMA[0].M[0] = -1
		l2, _ := LimitsFor(a)
		if l2.MMA[0].M[0] == -1 {
			t.Errorf("%s: LimitsFor shares its MMA slices", a)
		}
	}
	if _, err := LimitsFor("sm_80"); !errors.Is(err, ErrUnsupportedArch) {
		t.Errorf("LimitsFor(sm_80) = %v, want ErrUnsupportedArch", err)
	}
}

func TestLimitsSM90RegisterBudget(t *testing.T) {
	t.Parallel()
	l, _ := LimitsFor(ArchSM90a)
	// One producer and two consumer warpgroups at their setmaxnreg budgets
	// must fit in the register file.
	used := l.WarpgroupThreads * (l.ProducerRegs + 2*l.ConsumerRegs)
	if used > l.RegsPerSM || l.Threads != 3*l.WarpgroupThreads {
		t.Errorf("sm_90a register budget %d > %d or threads %d != 384", used, l.RegsPerSM, l.Threads)
	}
	if l.MaxAccRegs >= l.ConsumerRegs {
		t.Errorf("accumulator budget %d leaves no registers of %d", l.MaxAccRegs, l.ConsumerRegs)
	}
}

func TestMMAShape(t *testing.T) {
	t.Parallel()
	l, _ := LimitsFor(ArchSM100a)
	one, _ := l.MMAFor(BF16, 1)
	two, _ := l.MMAFor(BF16, 2)
	h, _ := LimitsFor(ArchSM90a)
	wg, _ := h.MMAFor(FP16, 0)
	got := map[string][]bool{
		"1cta M 64,128,256":    {one.LegalM(64), one.LegalM(128), one.LegalM(256)},
		"2cta M 64,128,256":    {two.LegalM(64), two.LegalM(128), two.LegalM(256)},
		"1cta N 8,16,256,272":  {one.LegalN(8), one.LegalN(16), one.LegalN(256), one.LegalN(272)},
		"wgmma N 8,12,200,264": {wg.LegalN(8), wg.LegalN(12), wg.LegalN(200), wg.LegalN(264)},
	}
	want := map[string][]bool{
		"1cta M 64,128,256":    {true, true, false},
		"2cta M 64,128,256":    {false, true, true},
		"1cta N 8,16,256,272":  {true, true, true, false},
		"wgmma N 8,12,200,264": {true, false, true, false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("legal shapes (-want +got):\n%s", d)
	}
}
