package perfmodel

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// The cost model: the FLOPs and fewest bytes of every kernel swigen times,
// by MLP segment (the seed's ledger) and by kernel kind. Every roofline
// floor swigen reports divides these by Ceilings or a datasheet GPU, so
// bench, tune and the MLP ledger count the same bytes.

// Segment is one step of the MLP training step, in execution order.
type Segment int

// The segments. The backward order is the data-flow order: dW_down needs
// only out and dy, dx and dW need grad_de.
const (
	FwdGateUp  Segment = iota // de = x @ W; out = left*silu(gate)
	FwdDown                   // y = out @ W_down
	BwdDSwiGLU                // dout = dy @ W_down^T; grad_de = dSwiGLU(dout, de) [; out]
	DWDown                    // dW_down = out^T @ dy
	DX                        // dx = grad_de @ W^T
	DW                        // dW = grad_de^T @ x
)

// Segments lists every segment in execution order.
func Segments() []Segment { return []Segment{FwdGateUp, FwdDown, BwdDSwiGLU, DWDown, DX, DW} }

// Forward reports whether s belongs to the forward pass.
func (s Segment) Forward() bool { return s == FwdGateUp || s == FwdDown }

// String is the segment's short name.
func (s Segment) String() string {
	switch s {
	case FwdGateUp:
		return "fwd gate-up"
	case FwdDown:
		return "fwd down"
	case BwdDSwiGLU:
		return "bwd dout+dSwiGLU"
	case DWDown:
		return "bwd dW_down"
	case DX:
		return "bwd dx"
	case DW:
		return "bwd dW"
	}
	return fmt.Sprintf("segment(%d)", int(s))
}

// Math is the segment's formula, for the ledger.
func (s Segment) Math(recomputeOut bool) string {
	switch s {
	case FwdGateUp:
		return "de = x @ W; out = left*silu(gate)"
	case FwdDown:
		return "y = out @ W_down"
	case BwdDSwiGLU:
		if recomputeOut {
			return "grad_de = dSwiGLU(dy @ W_down^T, de); out"
		}
		return "grad_de = dSwiGLU(dy @ W_down^T, de)"
	case DWDown:
		return "dW_down = out^T @ dy"
	case DX:
		return "dx = grad_de @ W^T"
	case DW:
		return "dW = grad_de^T @ x"
	}
	return ""
}

// Kernel is the swigen kernel kind that implements s.
func (s Segment) Kernel() tiling.Kernel {
	switch s {
	case FwdGateUp:
		return tiling.KernelFwdGateUp
	case FwdDown:
		return tiling.KernelFwdDown
	case BwdDSwiGLU:
		return tiling.KernelBwdDSwiGLU
	}
	return tiling.KernelGEMM
}

// Part is one kernel of an implementation: its FLOPs and the bytes it must
// move at least (each operand read once, each result written once).
type Part struct {
	Name  string
	FLOPs float64
	Bytes float64
}

// ledgerBytes is the element size the ledger counts bytes in: the default
// operand type's (tiling.DefaultDType; bf16 and fp16 alike). The ledger
// takes no dtype: a type of another size needs one here.
var ledgerBytes = float64(tiling.DefaultDType.Size())

// Cost is the seed's ledger entry for segment s at shape sh with
// ledgerBytes elements: the tensor-core FLOPs and the fewest bytes the fused segment
// must move. Elementwise math is not counted as FLOPs (the seed's rule:
// it is nearly free next to the HBM traffic). With recomputeOut the
// backward's dSwiGLU also writes out (the forward then need not keep it).
func Cost(s Segment, sh tiling.Shape, recomputeOut bool) Part {
	M, K, I := float64(sh.M), float64(sh.K), float64(sh.I)
	e := ledgerBytes
	p := Part{Name: s.String()}
	switch s {
	case FwdGateUp: // x, W in; de, out written
		p.FLOPs = 2 * M * K * 2 * I
		p.Bytes = e * (M*K + 2*I*K + 2*M*I + M*I)
	case FwdDown: // out, W_down in; y out
		p.FLOPs = 2 * M * I * K
		p.Bytes = e * (M*I + I*K + M*K)
	case BwdDSwiGLU: // dy, W_down, de in; grad_de (+ out) written; dout stays on chip
		p.FLOPs = 2 * M * K * I
		p.Bytes = e * (M*K + I*K + 2*M*I + 2*M*I)
		if recomputeOut {
			p.Bytes += e * M * I
		}
	case DWDown: // out, dy in; dW_down out
		p.FLOPs = 2 * I * M * K
		p.Bytes = e * (M*I + M*K + I*K)
	case DX: // grad_de, W in; dx out
		p.FLOPs = 2 * M * 2 * I * K
		p.Bytes = e * (2*M*I + 2*I*K + M*K)
	case DW: // grad_de, x in; dW out
		p.FLOPs = 2 * 2 * I * M * K
		p.Bytes = e * (2*M*I + M*K + 2*I*K)
	}
	return p
}

// FwdGateUpCost is the ledger's cost of one fwd_gateup call at sh: Cost of
// the FwdGateUp segment when the kernel also stores de (storeDe: training,
// the ledger's case), and without de's 2*M*I elements written when it does
// not (inference: x and W read, only out written). The FLOPs are the same.
func FwdGateUpCost(sh tiling.Shape, storeDe bool) Part {
	p := Cost(FwdGateUp, sh, false)
	if !storeDe {
		p.Bytes -= ledgerBytes * 2 * float64(sh.M) * float64(sh.I)
	}
	return p
}

// GemmCost is a gemm's FLOPs and the fewest bytes it moves (A and B read
// once, C written once, ledgerBytes elements).
func GemmCost(M, N, K int) (flops, bytes float64) {
	m, n, k := float64(M), float64(N), float64(K)
	return 2 * m * n * k, ledgerBytes * (m*k + n*k + m*n)
}

// KernelCost is the FLOPs and fewest bytes of one call of a kernel kind
// at sh (a gemm's shape holds M, K and N in I's place), storeOut counting
// the kernel's optional output; ok is false for a kind without a cost
// model (fwd_down).
func KernelCost(k tiling.Kernel, sh tiling.Shape, storeOut bool) (flops, bytes float64, ok bool) {
	f, ok := kernelCosts[k]
	if !ok {
		return 0, 0, false
	}
	flops, bytes = f(sh, storeOut)
	return flops, bytes, true
}

// kernelCosts is the cost model of each kind that has one (the test
// checks that every kind tune measures has one).
var kernelCosts = map[tiling.Kernel]func(sh tiling.Shape, storeOut bool) (flops, bytes float64){
	tiling.KernelBwdDSwiGLU: BwdCost,
	tiling.KernelFwdGateUp: func(sh tiling.Shape, storeOut bool) (float64, float64) {
		p := FwdGateUpCost(sh, storeOut)
		return p.FLOPs, p.Bytes
	},
	tiling.KernelGEMM: func(sh tiling.Shape, _ bool) (float64, float64) { return GemmCost(sh.M, sh.I, sh.K) },
	// The grouped kinds at T,K,I (T rows over all experts): the dense
	// kind's FLOPs exactly, and its bytes with one expert's weights, a
	// lower bound (the shape has no E), so the floor stays a floor.
	tiling.KernelMoEFwdGateUp: func(sh tiling.Shape, storeOut bool) (float64, float64) {
		p := FwdGateUpCost(sh, storeOut)
		return p.FLOPs, p.Bytes
	},
	tiling.KernelMoEBwdDSwiGLU: BwdCost,
	tiling.KernelMoEGEMM:       func(sh tiling.Shape, _ bool) (float64, float64) { return GemmCost(sh.M, sh.I, sh.K) },
}

// BaselineParts are the kernels of the unfused baseline of segment s: the
// GEMMs are one cuBLAS call each; the two SwiGLU segments add an
// elementwise kernel, and the intermediate (de's GEMM output is also the
// final de; dout is scratch) round-trips through HBM.
func BaselineParts(s Segment, sh tiling.Shape, recomputeOut bool) []Part {
	M, K, I := float64(sh.M), float64(sh.K), float64(sh.I)
	e := ledgerBytes
	switch s {
	case FwdGateUp:
		return []Part{
			{"cuBLAS de GEMM", 2 * M * K * 2 * I, e * (M*K + 2*I*K + 2*M*I)},
			{"elementwise SwiGLU", 0, e * (2*M*I + M*I)},
		}
	case BwdDSwiGLU:
		ew := e * (M*I + 2*M*I + 2*M*I)
		if recomputeOut {
			ew += e * M * I
		}
		return []Part{
			{"cuBLAS dout GEMM", 2 * M * K * I, e * (M*K + I*K + M*I)},
			{"elementwise dSwiGLU", 0, ew},
		}
	}
	c := Cost(s, sh, recomputeOut)
	c.Name = "cuBLAS GEMM"
	return []Part{c}
}

// Activations is the memory the forward keeps for the backward, in bytes:
// x [M,K], de [M,2I] and, unless the backward recomputes it, out [M,I].
// Saved is what recomputing out saves: M*I elements (0 when it is kept).
func Activations(sh tiling.Shape, recomputeOut bool) (kept, saved float64) {
	M, K, I := float64(sh.M), float64(sh.K), float64(sh.I)
	kept = ledgerBytes * (M*K + 2*M*I)
	outBytes := ledgerBytes * M * I
	if recomputeOut {
		return kept, outBytes
	}
	return kept + outBytes, 0
}

// GemmDims is a plain GEMM C[M,N] = op(A) @ op(B) with the operand majors
// its storage gives: A K-major is [M,K], MN-major [K,M]; B K-major is
// [N,K], MN-major [K,N].
type GemmDims struct {
	M, N, K        int
	MajorA, MajorB tiling.Major
}

// Shape is g as the gemm kind keeps a shape: {M, K, I: N}.
func (g GemmDims) Shape() tiling.Shape { return tiling.Shape{M: g.M, K: g.K, I: g.N} }

// Gemm is the GEMM of segment s at sh in the step's storage (x [M,K], W
// [2I,K], W_down [I,K], dy [M,K]; the package doc of lab/mlp): for the
// three weight- and input-gradient segments the GEMM swigen's gemm kernel
// runs, for the fused segments the GEMM of their unfused path (fwd gate-up,
// bwd dout) or of the fwd_down kernel.
func (s Segment) Gemm(sh tiling.Shape) GemmDims {
	M, K, I := sh.M, sh.K, sh.I
	k, mn := tiling.KMajor, tiling.MNMajor
	switch s {
	case FwdGateUp: // de = x @ W^T_stored: W [2I,K] is B [N,K]
		return GemmDims{M: M, N: 2 * I, K: K, MajorA: k, MajorB: k}
	case FwdDown: // y = out @ W_down: W_down [I,K] is B [K',N]
		return GemmDims{M: M, N: K, K: I, MajorA: k, MajorB: mn}
	case BwdDSwiGLU: // dout = dy @ W_down^T: W_down [I,K] is B [N,K]
		return GemmDims{M: M, N: I, K: K, MajorA: k, MajorB: k}
	case DWDown: // out [M,I] read as [K'=M, M'=I]; dy [M,K] as [K'=M, N'=K]
		return GemmDims{M: I, N: K, K: M, MajorA: mn, MajorB: mn}
	case DX: // grad_de [M,2I]; W [2I,K] as [K'=2I, N'=K]
		return GemmDims{M: M, N: K, K: 2 * I, MajorA: k, MajorB: mn}
	case DW: // grad_de [M,2I] as [K'=M, M'=2I]; x [M,K] as [K'=M, N'=K]
		return GemmDims{M: 2 * I, N: K, K: M, MajorA: mn, MajorB: mn}
	}
	return GemmDims{}
}
