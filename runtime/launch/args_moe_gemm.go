package launch

import (
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// MoEGemmArgs are the device buffers and sizes of one moe_gemm call: for
// each expert e, C[rows of e] = A[rows of e] @ B[e], all row-major. A
// [T,K] holds the tokens sorted by expert; B stacks the experts' weights
// [E,N,K] (major_b=k: the down projection's W_down [E,H,I], nn.Linear(I,H)
// per expert) or [E,K,N] (major_b=mn); Offs [E] int32 are the experts'
// cumulative row ends (expert e owns rows Offs[e-1]..Offs[e]-1, Offs[E-1]
// = T), read by the kernel only, so a launch needs no host copy of them
// and can be captured in a CUDA graph; C [T,N]. T = 0 is refused by the
// shape rule: there is nothing to launch.
type MoEGemmArgs struct {
	T, N, K, E    int
	A, B, Offs, C cu.DevicePtr
	Stream        *cu.Stream
}

func (a MoEGemmArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelMoEGEMM, Call{Sizes: manifest.Sizes{"T": a.T, "N": a.N, "K": a.K, "E": a.E}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"A": a.A, "B": a.B, "offs": a.Offs, "C": a.C}}
}
