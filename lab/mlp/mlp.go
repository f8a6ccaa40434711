// Package mlp benchmarks and verifies the whole SwiGLU-MLP training step
// (forward and backward, docs/DESIGN.md#math-and-conventions) as the seed's implementation
// ledger: per segment, swigen's kernel against the unfused baseline (cuBLAS
// GEMMs plus elementwise kernels), each with its FLOPs, bytes, time and
// share of the roofline floor, measured in the same run.
//
// Storage (row-major, 16-bit): x [M,K]; W [2I,K] (nn.Linear layout: rows
// 0..I-1 produce left, rows I..2I-1 gate, so de = x @ W^T_stored);
// W_down [I,K]; dy [M,K]. The weight gradients are stored like their
// weights: dW [2I,K], dW_down [I,K].
package mlp

import "github.com/swigen/swigen/perfmodel"

// Segment is one step of the MLP training step (perfmodel, which owns
// the ledger's costs). The aliases keep the ledger's code short.
type Segment = perfmodel.Segment

// Part is one kernel of an implementation with its cost (perfmodel.Part).
type Part = perfmodel.Part

// The segments, in execution order (perfmodel's).
const (
	FwdGateUp  = perfmodel.FwdGateUp
	FwdDown    = perfmodel.FwdDown
	BwdDSwiGLU = perfmodel.BwdDSwiGLU
	DWDown     = perfmodel.DWDown
	DX         = perfmodel.DX
	DW         = perfmodel.DW
)
