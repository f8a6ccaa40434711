package launch

import (
	"fmt"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// FwdGateUpArgs are the device buffers and sizes of one fwd_gateup call
// de = x @ W, out = left*silu(gate), all row-major: X [M,K]; W [2I,K]
// (major_b=k, nn.Linear's layout: left rows then gate rows) or [K,2I]
// (major_b=mn); Out [M,I]; De [M,2I] = [left | gate], written only by
// configs with StoreOut (training) and ignored otherwise.
type FwdGateUpArgs struct {
	M, K, I       int
	X, W, De, Out cu.DevicePtr
	Stream        *cu.Stream
}

// FwdGateUpPlan is a fwd_gateup launch with its tensor maps encoded.
type FwdGateUpPlan struct{ plan }

// CheckFwdGateUpShape checks the sizes of a fwd_gateup call against TMA's
// rules: x and W rows (K) and out rows and de's halves (I) must be 16-byte
// multiples.
func CheckFwdGateUpShape(cfg tiling.Config, M, K, I int) error {
	var errs []string
	if M < 1 {
		errs = append(errs, fmt.Sprintf("M=%d: must be >= 1", M))
	}
	pitchRule(&errs, "x and W", "K", K)
	pitchRule(&errs, "out and de's halves", "I", I)
	if len(errs) > 0 {
		return fmt.Errorf("launch: %s: bad shape: %s", cfg.Name(), joinLines(errs))
	}
	return nil
}

// PlanFwdGateUp encodes the tensor maps of a fwd_gateup call.
func (k *Kernel) PlanFwdGateUp(a FwdGateUpArgs) (*FwdGateUpPlan, error) {
	cfg, boxes, err := k.checkKind("PlanFwdGateUp", tiling.KernelFwdGateUp)
	if err != nil {
		return nil, err
	}
	if err := CheckFwdGateUpShape(cfg, a.M, a.K, a.I); err != nil {
		return nil, err
	}
	M, K, I := uint64(a.M), uint64(a.K), uint64(a.I)
	e := &mapEncoder{k: k, dt: tmapDType(cfg.DType)}
	if err := e.add("x", a.X, []uint64{K, M}, nil, boxes.A); err != nil {
		return nil, err
	}
	// W as one 2-D tensor: the gate half starts I rows (major_b=k) or I
	// columns (major_b=mn) past the left one. A ragged I lets the left
	// half's last box read gate rows; those columns are past I and their
	// stores are clipped.
	wDims := []uint64{K, 2 * I} // [2I,K]
	if cfg.MajorB == tiling.MNMajor {
		wDims = []uint64{2 * I, K} // [K,2I]
	}
	if err := e.add("W", a.W, wDims, nil, boxes.B); err != nil {
		return nil, err
	}
	if err := e.add("out", a.Out, []uint64{I, M}, nil, boxes.Out); err != nil {
		return nil, err
	}
	if cfg.StoreOut {
		// de as [M][2][I]: stores clip at each half's end, not at 2I.
		if err := e.add("de", a.De, []uint64{I, 2, M}, []uint64{I * 2, 2 * I * 2}, boxes.De); err != nil {
			return nil, err
		}
	}
	// One tile is TileN accumulator columns: TileN/2 left + TileN/2 gate.
	grid, err := k.persistentGrid(cfg, a.M, 2*a.I)
	if err != nil {
		return nil, err
	}
	pl := &FwdGateUpPlan{plan{k: k, maps: e.maps, dims: [3]int32{int32(a.M), int32(a.I), int32(a.K)}, grid: uint32(grid), stream: a.Stream}}
	return pl, nil
}

// FwdDownArgs are the device buffers and sizes of one fwd_down call
// y = out @ W_down (+ residual), all row-major: Out [M,I]; WDown [I,K]
// (major_b=mn: this GEMM's B with N=K contiguous) or [K,I] (major_b=k,
// nn.Linear's down_proj layout); Y [M,K]; Residual [M,K], read only by
// configs with Residual and ignored otherwise.
type FwdDownArgs struct {
	M, K, I                 int
	Out, WDown, Residual, Y cu.DevicePtr
	Stream                  *cu.Stream
}

// FwdDownPlan is a fwd_down launch with its tensor maps encoded.
type FwdDownPlan struct{ plan }

// CheckFwdDownShape checks the sizes of a fwd_down call against TMA's
// rules: out rows (I) and y, residual and W_down rows (K) must be 16-byte
// multiples.
func CheckFwdDownShape(cfg tiling.Config, M, K, I int) error {
	var errs []string
	if M < 1 {
		errs = append(errs, fmt.Sprintf("M=%d: must be >= 1", M))
	}
	pitchRule(&errs, "y and residual", "K", K)
	pitchRule(&errs, "out", "I", I)
	if len(errs) > 0 {
		return fmt.Errorf("launch: %s: bad shape: %s", cfg.Name(), joinLines(errs))
	}
	return nil
}

// PlanFwdDown encodes the tensor maps of a fwd_down call. The kernel's
// GEMM is M x K x I (its N is the model dim K, its reduction I).
func (k *Kernel) PlanFwdDown(a FwdDownArgs) (*FwdDownPlan, error) {
	cfg, boxes, err := k.checkKind("PlanFwdDown", tiling.KernelFwdDown)
	if err != nil {
		return nil, err
	}
	if err := CheckFwdDownShape(cfg, a.M, a.K, a.I); err != nil {
		return nil, err
	}
	if cfg.Residual && a.Residual == 0 {
		return nil, fmt.Errorf("launch: %s: the config adds a residual but FwdDownArgs.Residual is 0", k.Man.Name)
	}
	M, K, I := uint64(a.M), uint64(a.K), uint64(a.I)
	e := &mapEncoder{k: k, dt: tmapDType(cfg.DType)}
	if err := e.add("out", a.Out, []uint64{I, M}, nil, boxes.A); err != nil {
		return nil, err
	}
	wDims := []uint64{I, K} // [K,I]: K-major for this GEMM
	if cfg.MajorB == tiling.MNMajor {
		wDims = []uint64{K, I} // [I,K]
	}
	if err := e.add("W_down", a.WDown, wDims, nil, boxes.B); err != nil {
		return nil, err
	}
	if err := e.add("y", a.Y, []uint64{K, M}, nil, boxes.Out); err != nil {
		return nil, err
	}
	if cfg.Residual {
		if err := e.add("residual", a.Residual, []uint64{K, M}, nil, boxes.Out); err != nil {
			return nil, err
		}
	}
	grid, err := k.persistentGrid(cfg, a.M, a.K)
	if err != nil {
		return nil, err
	}
	return &FwdDownPlan{plan{k: k, maps: e.maps, dims: [3]int32{int32(a.M), int32(a.K), int32(a.I)}, grid: uint32(grid), stream: a.Stream}}, nil
}
