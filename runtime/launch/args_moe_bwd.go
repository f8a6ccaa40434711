package launch

import (
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// MoEBwdArgs are the device buffers and sizes of one moe_bwd_dswiglu call:
// for each expert e, dout = dy[rows of e] @ W_down[e] and grad_de[rows of
// e] = dSwiGLU(dout, de[rows of e]), all row-major. Dy [T,K] and De [T,2I]
// ([left | gate], as the forward stores it) hold the tokens sorted by
// expert; WDown [E,K,I] stacks the experts' nn.Linear(I,K).weight; Offs [E]
// int32 are the experts' cumulative row ends (expert e owns rows
// Offs[e-1]..Offs[e]-1, Offs[E-1] = T), read by the kernel only, so a
// launch needs no host copy of them and can be captured in a CUDA graph;
// GradDe [T,2I]; Out [T,I], the recomputed left*silu(gate), with StoreOut
// only. With Score (configs with Score): Score [T] fp32, each row's router
// weight, scales dout into the dSwiGLU (grad_de) and out, and DScorePart
// [T, cdiv(I,TileN)] fp32 receives the score's gradient as per-tile row
// partials (DScore sums them). T = 0 is refused by the shape rule: there
// is nothing to launch.
type MoEBwdArgs struct {
	T, K, I, E                       int
	Dy, WDown, De, Offs, GradDe, Out cu.DevicePtr
	Score, DScorePart                cu.DevicePtr
	Stream                           *cu.Stream
}

func (a MoEBwdArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelMoEBwdDSwiGLU, Call{Sizes: manifest.Sizes{"T": a.T, "K": a.K, "I": a.I, "E": a.E}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"dy": a.Dy, "W_down": a.WDown, "de": a.De, "offs": a.Offs, "grad_de": a.GradDe, "out": a.Out,
			"score": a.Score, "dscore_part": a.DScorePart}}
}
