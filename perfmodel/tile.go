package perfmodel

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/tiling"
)

// ModelKernel is the kind the datasheet model projects (WriteModel): the
// roofline (BwdRoofline) and the per-tile model (NewTileWork) count
// bwd_dswiglu's operands and its dSwiGLU epilogue, so they hold for no
// other kind.
const ModelKernel = tiling.KernelBwdDSwiGLU

// TileWork is what one SM does for one output tile of an sm_100a
// bwd_dswiglu config: the mainloop's MMAs and operand loads, and the
// epilogue's TMEM reads, math, shared-memory staging and HBM streams.
// With the 2-CTA schedule each SM of the pair holds half the tile's rows
// and loads half of B, so the counts are per CTA. Every tile is counted
// whole: ragged edges make a few tiles cheaper, never dearer.
type TileWork struct {
	Rows, Cols int // output rows (this CTA's) and columns of a tile
	K          int // K rounded up to whole TileK k-blocks (TMA zero-fills the rest)

	MMAFLOPs     float64 // 2 * Rows * Cols * K
	OperandBytes float64 // (TileMPerCTA + TileNPerCTA) * K * element bytes, TMA from L2

	TMEMBytes float64 // fp32 accumulator read into registers: 4 per element
	ALUOps    float64 // per tile; ALUPerElement per element
	MUFUOps   float64 // per tile; MUFUPerElement per element
	SmemBytes float64 // the warpgroup's shared-memory loads and stores
	LoadBytes float64 // de = [left | gate] TMA-loaded from HBM
	// StoreBytes is grad_de (and out, when stored) TMA-stored to HBM.
	StoreBytes float64
}

// Elements is the tile's output elements of this CTA: Rows * Cols.
func (w TileWork) Elements() float64 { return float64(w.Rows) * float64(w.Cols) }

// The dSwiGLU epilogue's instructions per element of dout (common.cuh's
// sw_dswiglu): unpacking left and gate (2), the fp32 math (9: the sigmoid's
// scale and 1+e, silu, both products and dgate's four), and packing
// grad_de's two halves (two elements per cvt, 1); storing out adds its
// product and half a pack. The sigmoid is ex2 + rcp on the MUFU, or one
// tanh with FastSigmoid.
const (
	aluPerElement         = 12
	aluPerElementStoreOut = 1.5
	mufuPerElement        = 2
	mufuPerElementFast    = 1
)

// ALUPerElement and MUFUPerElement are c's epilogue instruction counts per
// dout element (see aluPerElement).
func ALUPerElement(c tiling.Config) float64 {
	if c.StoreOut {
		return aluPerElement + aluPerElementStoreOut
	}
	return aluPerElement
}

// MUFUPerElement is c's special-function instructions per dout element.
func MUFUPerElement(c tiling.Config) float64 {
	if c.FastSigmoid {
		return mufuPerElementFast
	}
	return mufuPerElement
}

// NewTileWork counts one tile of c at shape s. c must be an sm_100a
// bwd_dswiglu config.
func NewTileWork(c tiling.Config, s tiling.Shape) (TileWork, error) {
	if c.Arch != tiling.ArchSM100a || c.Kernel != ModelKernel {
		return TileWork{}, fmt.Errorf("perfmodel: tile of %s: the per-tile model covers sm_100a %s configs only", c.Name(), ModelKernel)
	}
	if c.TileK <= 0 || s.K <= 0 {
		return TileWork{}, fmt.Errorf("perfmodel: tile of %s at %s: TileK and K must be positive", c.Name(), s)
	}
	dt, err := c.DType.Spec()
	if err != nil {
		return TileWork{}, fmt.Errorf("perfmodel: tile of %s: %w", c.Name(), err)
	}
	elem := float64(dt.Bytes) // operands and outputs
	w := TileWork{Rows: c.TileMPerCTA(), Cols: c.TileN, K: (s.K + c.TileK - 1) / c.TileK * c.TileK}
	e := w.Elements()
	outs := 2.0 // grad_de's left and gate halves
	if c.StoreOut {
		outs = 3
	}
	w.MMAFLOPs = 2 * e * float64(w.K)
	w.OperandBytes = float64((c.TileMPerCTA()+c.TileNPerCTA())*w.K) * elem
	w.TMEMBytes = 4 * e
	w.ALUOps = ALUPerElement(c) * e
	w.MUFUOps = MUFUPerElement(c) * e
	w.LoadBytes = 2 * elem * e // left and gate
	w.StoreBytes = outs * elem * e
	// Each thread reads left and gate from the slot and writes grad_de's
	// halves (and out) back.
	w.SmemBytes = w.LoadBytes + w.StoreBytes
	return w, nil
}

// TileTimes are the times of one tile's roles on one SM, in microseconds,
// at the per-SM rates of a GPU (its share of the tensor rate and of HBM,
// and the Pipeline's per-clock rates at its clock):
//
//	MMA       = MMAFLOPs / (TFLOPs / SMs)
//	TMA       = OperandBytes / L2 rate
//	Mainloop  = max(MMA, TMA)                    the operand ring overlaps them
//	TMEMLoad  = TMEMBytes / TMEM rate
//	Math      = max((ALU + MUFU) / ALU rate, MUFU / MUFU rate)   issue or MUFU bound
//	Smem      = SmemBytes / shared-memory rate
//	Warpgroup = TMEMLoad + Math + Smem           one warpgroup does them in turn
//	Loads     = LoadBytes / (HBM / SMs)          warp 2, ahead through the epilogue ring
//	Stores    = StoreBytes / (HBM / SMs)         asynchronous TMA stores
//	HBM       = Loads + Stores                   they share the SM's HBM share
//	Epilogue  = max(Warpgroup, HBM)
//
// Shared memory is charged only for the warpgroup's own loads and stores:
// the TMA engine's and the MMAs' traffic through it is left out, as are
// the warpgroup's address arithmetic and barrier waits.
type TileTimes struct {
	MMA, TMA, Mainloop              float64
	TMEMLoad, Math, Smem, Warpgroup float64
	Loads, Stores, HBM              float64
	Epilogue                        float64
}

// Times returns w's role times on g, which must have a Pipeline.
func (w TileWork) Times(g GPU) TileTimes {
	p := g.Pipe
	var t TileTimes
	t.MMA = w.MMAFLOPs / g.tensorPerUS()
	t.TMA = w.OperandBytes / g.perSM(p.L2BytesPerClk)
	t.Mainloop = math.Max(t.MMA, t.TMA)
	t.TMEMLoad = w.TMEMBytes / g.perSM(p.TMEMBytesPerClk)
	t.Math = math.Max((w.ALUOps+w.MUFUOps)/g.perSM(p.ALUPerClk), w.MUFUOps/g.perSM(p.MUFUPerClk))
	t.Smem = w.SmemBytes / g.perSM(p.SmemBytesPerClk)
	t.Warpgroup = t.TMEMLoad + t.Math + t.Smem
	t.Loads = w.LoadBytes / g.hbmPerUS()
	t.Stores = w.StoreBytes / g.hbmPerUS()
	t.HBM = t.Loads + t.Stores
	t.Epilogue = math.Max(t.Warpgroup, t.HBM)
	return t
}
