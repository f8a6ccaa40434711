package launch

import (
	"fmt"
	"sync"
	"time"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/tiling"
)

// Unfused is the unfused path of a fused config (tiling.PlanFor): swigen's
// gemm kernel writes the intermediate (bwd_dswiglu's dout [M,I],
// fwd_gateup's de [M,2I]) to HBM, then the elementwise kernel computes the
// fused kernel's outputs from it. It takes the fused kernel's arguments;
// the intermediate, where no output holds it, goes to the arguments'
// Workspace when they give one, else to a buffer Unfused owns: allocated
// on the first call of each size, reused by every later call of that size
// and freed by Close. Calls that share an owned intermediate must run one
// after the other (one stream); calls that may overlap pass their own.
type Unfused struct {
	Fused tiling.Config // the config whose call it replaces
	Gemm  *Kernel
	EW    *elementwise.Module

	mu  sync.Mutex
	ws  scratch // owned intermediates
	mem func(bytes int) (cu.DevicePtr, error)
}

// NewUnfused checks that gemm can run fused's unfused path: a gemm kernel
// of fused's arch and dtype, A K-major, B in fused's weight layout.
func NewUnfused(fused tiling.Config, gemm *Kernel, ew *elementwise.Module) (*Unfused, error) {
	if !tiling.HasUnfused(fused.Kernel) {
		return nil, fmt.Errorf("launch: unfused: %s has no unfused path", fused.Name())
	}
	if gemm == nil || ew == nil {
		return nil, fmt.Errorf("launch: unfused %s: nil gemm kernel or elementwise module", fused.Name())
	}
	g := gemm.Man.Config
	if g.Kernel != tiling.PlainGEMM() || g.Arch != fused.Arch || g.DType != fused.DType || g.MajorA != tiling.KMajor || g.MajorB != fused.MajorB {
		return nil, fmt.Errorf("launch: unfused %s: %s is not a %s %s gemm with A K-major and B %s-major", fused.Name(), g.Name(), fused.Arch, fused.DType, fused.MajorB)
	}
	return &Unfused{Fused: fused, Gemm: gemm, EW: ew}, nil
}

// intermediate is the caller's workspace given, or else Unfused's own of
// bytes for launches on stream (one per stream: calls on two streams may
// overlap).
func (u *Unfused) intermediate(given cu.DevicePtr, bytes int, stream *cu.Stream) (cu.DevicePtr, error) {
	if given != 0 {
		return given, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.ws.get(scratchKey{stream: stream, bytes: int64(bytes)}, func() (cu.DevicePtr, error) {
		alloc := u.mem
		if alloc == nil {
			if u.Gemm == nil || u.Gemm.ctx == nil {
				return 0, fmt.Errorf("no workspace given and no context to allocate %d bytes in", bytes)
			}
			alloc = func(n int) (cu.DevicePtr, error) { return u.Gemm.ctx.MemAlloc(uint64(n)) }
		}
		p, err := alloc(bytes)
		if err != nil {
			return 0, fmt.Errorf("allocate %d bytes: %w", bytes, err)
		}
		return p, nil
	})
}

// Close frees the intermediates Unfused allocated (its kernels are their
// owner's to close).
func (u *Unfused) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	var release func(cu.DevicePtr) error
	if u.mem == nil {
		release = func(p cu.DevicePtr) error {
			if err := u.Gemm.ctx.MemFree(p); err != nil {
				return fmt.Errorf("launch: unfused %s: free intermediate: %w", u.Fused.Name(), err)
			}
			return nil
		}
	}
	return u.ws.free(release)
}

// WorkspaceBytes is the workspace a call at a's sizes needs: dout for
// bwd_dswiglu (2MI bytes), de for fwd_gateup inference (4MI bytes); 0 for
// fwd_gateup training, whose de output holds it. A call may pass it in its
// Workspace; without one, Unfused uses its own.
func (u *Unfused) WorkspaceBytes(a Args) (int, error) {
	kind, c := a.call()
	if kind != "" && kind != u.Fused.Kernel {
		return 0, fmt.Errorf("launch: unfused %s: %T are for a %s kernel", u.Fused.Name(), a, kind)
	}
	M, I := c.Sizes["M"], c.Sizes["I"]
	if M < 1 || I < 1 {
		return 0, fmt.Errorf("launch: unfused %s: M=%d I=%d: sizes must be positive", u.Fused.Name(), M, I)
	}
	s, _ := tiling.KindOf(u.Fused.Kernel)
	if u.Fused.StoreOut && s.UnfusedIntoOutput {
		return 0, nil
	}
	return 2 * s.UnfusedN * M * I, nil // the GEMM's 16-bit [M, UnfusedN*I]
}

// UnfusedPlan is a planned call of the unfused path.
type UnfusedPlan struct {
	gemm *Plan
	ew   func() error
}

// Plan plans one call at a (BwdArgs or FwdGateUpArgs of the fused kind):
// the gemm kernel's launch into the intermediate and the elementwise
// kernel's after it, on a's stream. It takes what the fused kernel takes:
// a's sizes must pass the fused kernel's shape rules, and with StoreOut
// the second output must be given.
func (u *Unfused) Plan(a Args) (*UnfusedPlan, error) {
	if err := CheckShape(u.Fused, a); err != nil {
		return nil, err
	}
	ws, err := u.WorkspaceBytes(a)
	if err != nil {
		return nil, err
	}
	name := u.Fused.Name()
	dt := u.Fused.DType
	switch x := a.(type) {
	case BwdArgs:
		out := x.Out
		switch {
		case !u.Fused.StoreOut:
			out = 0
		case out == 0:
			return nil, fmt.Errorf("launch: unfused %s: BwdArgs.Out is 0; the config stores out (store_out)", name)
		}
		dout, err := u.intermediate(x.Workspace, ws, x.Stream)
		if err != nil {
			return nil, fmt.Errorf("launch: unfused %s at M=%d I=%d: dout: %w", name, x.M, x.I, err)
		}
		g, err := u.Gemm.Plan(GemmArgs{M: x.M, N: x.I, K: x.K, A: x.Dy, B: x.WDown, C: dout, Stream: x.Stream})
		if err != nil {
			return nil, fmt.Errorf("launch: unfused %s: %w", name, err)
		}
		return &UnfusedPlan{gemm: g, ew: func() error {
			return u.EW.DSwiGLU(dt, x.M, x.I, dout, x.De, x.GradDe, out, x.Stream)
		}}, nil
	case FwdGateUpArgs:
		de := x.De
		switch {
		case x.Out == 0:
			return nil, fmt.Errorf("launch: unfused %s: FwdGateUpArgs.Out is 0", name)
		case u.Fused.StoreOut && de == 0:
			return nil, fmt.Errorf("launch: unfused %s: FwdGateUpArgs.De is 0; the config stores de (training)", name)
		}
		if !u.Fused.StoreOut {
			var err error
			if de, err = u.intermediate(x.Workspace, ws, x.Stream); err != nil {
				return nil, fmt.Errorf("launch: unfused %s at M=%d I=%d: de: %w", name, x.M, x.I, err)
			}
		}
		g, err := u.Gemm.Plan(GemmArgs{M: x.M, N: 2 * x.I, K: x.K, A: x.X, B: x.W, C: de, Stream: x.Stream})
		if err != nil {
			return nil, fmt.Errorf("launch: unfused %s: %w", name, err)
		}
		return &UnfusedPlan{gemm: g, ew: func() error { return u.EW.SwiGLU(dt, x.M, x.I, de, x.Out, x.Stream) }}, nil
	}
	return nil, fmt.Errorf("launch: unfused %s: %T: want BwdArgs or FwdGateUpArgs", name, a)
}

// Launch enqueues the gemm kernel, then the elementwise kernel.
func (p *UnfusedPlan) Launch() error {
	if err := p.gemm.Launch(); err != nil {
		return err
	}
	return p.ew()
}

// Sync waits for the stream with a deadline.
func (p *UnfusedPlan) Sync(timeout time.Duration) error { return p.gemm.Sync(timeout) }
