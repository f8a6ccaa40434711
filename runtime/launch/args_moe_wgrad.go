package launch

import (
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// MoEWgradArgs are the device buffers and sizes of one moe_wgrad call:
// for each expert e, dW[e] = A[rows of e]^T @ B[rows of e], all
// row-major. A [T,N] and B [T,K] hold the tokens sorted by expert (W_down
// [E,H,I]'s gradient: A = dy [T,H], B = h [T,I]; W [E,2I,H]'s: A =
// grad_de [T,2I], B = x [T,H]); Offs [E] int32 are the experts' cumulative
// row ends (expert e owns rows Offs[e-1]..Offs[e]-1, Offs[E-1] = T), read
// by the kernel only, so a launch needs no host copy of them and can be
// captured in a CUDA graph; DW [E,N,K], every expert's written (zeros for
// an expert with no rows). T = 0 is refused by the shape rule.
type MoEWgradArgs struct {
	T, N, K, E     int
	A, B, Offs, DW cu.DevicePtr
	Stream         *cu.Stream
}

func (a MoEWgradArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelMoEWgrad, Call{Sizes: manifest.Sizes{"T": a.T, "N": a.N, "K": a.K, "E": a.E}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"A": a.A, "B": a.B, "offs": a.Offs, "dW": a.DW}}
}
