package launch

import (
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// MoEFwdGateUpArgs are the device buffers and sizes of one moe_fwd_gateup
// call: for each expert e, out[rows of e] = left*silu(gate) of
// x[rows of e] @ W[e], all row-major. X [T,K] holds the tokens sorted by
// expert; W [E,2I,K] stacks the experts' fwd_gateup weights (major_b=k:
// left rows, then gate rows); Offs [E] int32 are the experts' cumulative
// row ends (expert e owns rows Offs[e-1]..Offs[e]-1, Offs[E-1] = T), read
// by the kernel only, so a launch needs no host copy of them and can be
// captured in a CUDA graph; Out [T,I]; De [T,2I] = [left | gate] (the
// pre-activation, for the backward), written only by configs with
// StoreOut (training) and ignored otherwise; Score [T] fp32, each row's
// router weight (out = Score[t]*left*silu(gate); de stays unscaled), read
// only by configs with Score. T = 0 is refused by the shape rule: there is
// nothing to launch.
type MoEFwdGateUpArgs struct {
	T, K, I, E                 int
	X, W, Offs, Out, De, Score cu.DevicePtr
	Stream                     *cu.Stream
}

func (a MoEFwdGateUpArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelMoEFwdGateUp, Call{Sizes: manifest.Sizes{"T": a.T, "K": a.K, "I": a.I, "E": a.E}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"x": a.X, "W": a.W, "offs": a.Offs, "out": a.Out, "de": a.De, "score": a.Score}}
}
