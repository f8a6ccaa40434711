package perfmodel

import (
	"math"

	"github.com/swigen/swigen/tiling"
)

// BwdCost is the seed's ledger for one bwd_dswiglu call: the dout GEMM's
// FLOPs and the fewest bytes it must move (dy, W_down, de in; grad_de out;
// plus out when stored).
func BwdCost(s tiling.Shape, storeOut bool) (flops, bytes float64) {
	p := Cost(BwdDSwiGLU, s, storeOut)
	return p.FLOPs, p.Bytes
}

// Roofline is the floor of one bwd_dswiglu call (out not stored) on a
// datasheet GPU: FLOPs at the tensor rate against the fewest bytes at the
// HBM bandwidth, and the same floor for the unfused baseline, whose GEMM
// writes dout and whose elementwise kernel reads it back.
type Roofline struct {
	FLOPs, Bytes float64
	// ComputeUS and MemoryUS are FLOPs / TFLOPs and Bytes / HBMTBs.
	ComputeUS, MemoryUS float64
	// GemmUS is the unfused GEMM's floor: its compute, or dy, W_down and
	// dout through HBM. ElementwiseUS is the elementwise kernel's: dout
	// and de read, grad_de written.
	GemmUS, ElementwiseUS float64
}

// BwdRoofline is the roofline of bwd_dswiglu at s on g.
func BwdRoofline(g GPU, s tiling.Shape) Roofline {
	flops, bytes := BwdCost(s, false)
	r := Roofline{FLOPs: flops, Bytes: bytes}
	r.ComputeUS, r.MemoryUS = g.rooflineUS(flops, bytes)
	bw := g.HBMTBs * 1e12
	parts := BaselineParts(BwdDSwiGLU, s, false)
	r.GemmUS = math.Max(r.ComputeUS, parts[0].Bytes/bw*1e6) // writes dout
	r.ElementwiseUS = parts[1].Bytes / bw * 1e6             // reads dout and de, writes grad_de
	return r
}

// rooflineUS is the time of flops at g's tensor rate and of bytes at its
// HBM bandwidth.
func (g GPU) rooflineUS(flops, bytes float64) (computeUS, memoryUS float64) {
	return flops / (g.TFLOPs * 1e12) * 1e6, bytes / (g.HBMTBs * 1e12) * 1e6
}

// FloorUS is the fused kernel's floor: max(ComputeUS, MemoryUS).
func (r Roofline) FloorUS() float64 { return math.Max(r.ComputeUS, r.MemoryUS) }

// Bound says which side sets the floor: "compute" or "memory".
func (r Roofline) Bound() string {
	if r.MemoryUS > r.ComputeUS {
		return "memory"
	}
	return "compute"
}

// UnfusedUS is the unfused baseline's floor: GemmUS + ElementwiseUS.
func (r Roofline) UnfusedUS() float64 { return r.GemmUS + r.ElementwiseUS }
