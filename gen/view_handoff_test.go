package gen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestHandoffView pins what the handoff schedule's view hands its
// templates: 512 threads with the epilogue warpgroup going up to 136
// registers (setmaxnreg.inc: a .dec above the entry count of 128 is an
// illegal instruction, call 89), the dout buffer as the epilogue region
// (one half per consumer), 8 consumer-warp arrivals filling it, de and
// grad_de through raw pointers, and no producer de loads or stores.
func TestHandoffView(t *testing.T) {
	t.Parallel()
	c := kindCfg(tiling.KernelBwdDSwiGLU, tiling.Handoff, 256, 128, nil)
	v, err := newSM90View(c)
	if err != nil {
		t.Fatal(err)
	}
	type handoff struct {
		Threads, ProducerRegs, ConsumerRegs, EpiWGRegs int
		EpiWGRegOp                                     string
		MB, Stages, DoutPitch, EpiConsumerBytes        int
		EpiFullArrivals, EpiEmptyArrivals              int
		EpiLoads, ProducerStores                       bool
		RawParams                                      string
	}
	got := handoff{v.Threads, v.ProducerRegs, v.ConsumerRegs, v.EpiWGRegs, v.EpiWGRegOp, v.MB, v.Stages, v.DoutPitch, v.EpiConsumerBytes,
		v.EpiFullArrivals, v.EpiEmptyArrivals, v.EpiLoads, v.ProducerStores, v.RawParams}
	want := handoff{512, 24, 176, 136, "inc", 2, 3, 256, 128 * 256,
		8, 4, false, false, ", const unsigned short* __restrict__ de_raw, unsigned short* __restrict__ gde_raw"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("handoff view (-want +got):\n%s", d)
	}
	if v.EpiOff+2*v.EpiConsumerBytes != c.Smem().BarrierOffset {
		t.Errorf("dout buffer [%d, +%d) does not end at the barriers (%d)", v.EpiOff, 2*v.EpiConsumerBytes, c.Smem().BarrierOffset)
	}
	// The rendered kernel has the epilogue warpgroup and its register
	// direction, and no producer epilogue-operand warp.
	src, err := Render(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"} else if (wg == 3) {", "setmaxnreg.inc.sync.aligned.u32 136;", "setmaxnreg.inc.sync.aligned.u32 176;", "__launch_bounds__(512, 1)"} {
		if !strings.Contains(string(src.Source), s) {
			t.Errorf("rendered handoff kernel lacks %q", s)
		}
	}
	if strings.Contains(string(src.Source), "(warp == 1 || warp == 2) && lane == 0") {
		t.Error("rendered handoff kernel has the producer's epilogue-operand warps")
	}
}
