package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/tiling"
)

// DispatchBinding is what generated Go bindings embed of one fused
// kernel's dispatch plan: the plan (manifest.Dispatch, as JSON), the
// unfused path's gemm kernel and the elementwise module's cubin.
type DispatchBinding struct {
	Plan              []byte
	Gemm              *Binding
	Elementwise       []byte
	ElementwiseSHA256 string
}

// Dispatch runs a kind's calls as its dispatch plan says: the fused
// kernel, or the unfused path (Unfused) where the plan's measured points
// say fusion does not win by 2% (manifest.Dispatch.Choose). Without a
// plan every call is fused.
type Dispatch struct {
	Fused   *Kernel
	Unfused *Unfused
	Plan    *manifest.Dispatch
}

// LoadDispatch loads the dispatch plan of the loaded fused kernel from
// the binding among ds whose plan names it; with none, the Dispatch runs
// every call fused. On any error nothing it loaded stays loaded.
func LoadDispatch(ctx *cu.Context, fused *Kernel, ds ...DispatchBinding) (*Dispatch, error) {
	d := &Dispatch{Fused: fused}
	for _, b := range ds {
		plan, err := manifest.ParseDispatch(b.Plan)
		if err != nil {
			return nil, fmt.Errorf("launch: %s: %w", fused.Man.Name, err)
		}
		if plan.Fused != fused.Man.Name {
			continue
		}
		if b.Gemm == nil || b.Gemm.Name != plan.Gemm {
			return nil, fmt.Errorf("launch: %s: its plan's gemm %s is not the embedded one", fused.Man.Name, plan.Gemm)
		}
		sum := sha256.Sum256(b.Elementwise)
		if got := hex.EncodeToString(sum[:]); len(b.Elementwise) == 0 || got != b.ElementwiseSHA256 {
			return nil, fmt.Errorf("launch: %s: embedded elementwise cubin has sha256 %s, the bindings were generated for %s: regenerate them (swigen emit --go-package)", fused.Man.Name, got, b.ElementwiseSHA256)
		}
		man, err := b.Gemm.Check()
		if err != nil {
			return nil, fmt.Errorf("launch: %s: %w", fused.Man.Name, err)
		}
		gemm, err := Load(ctx, ctx.Device(), b.Gemm.Cubin, man)
		if err != nil {
			return nil, err
		}
		ew, err := elementwise.Load(ctx, b.Elementwise)
		if err != nil {
			gemm.Close()
			return nil, err
		}
		if d.Unfused, err = NewUnfused(fused.Man.Config, gemm, ew); err != nil {
			gemm.Close()
			ew.Close()
			return nil, err
		}
		d.Plan = plan
		return d, nil
	}
	return d, nil
}

// Path is the path a call at a's sizes takes, and why.
func (d *Dispatch) Path(a Args) (tiling.Path, string) {
	if d.Unfused == nil || d.Plan == nil {
		return tiling.PathFused, "fused: the package has no unfused path for this kernel"
	}
	_, c := a.call()
	return d.Plan.Choose(tiling.Shape{M: c.Sizes["M"], K: c.Sizes["K"], I: c.Sizes["I"]})
}

// WorkspaceBytes is the workspace a call at a's sizes may pass in its
// Workspace field: the unfused path's intermediate where the plan takes
// that path, else 0. A call that passes none uses the Dispatch's own,
// allocated once per size and freed by Close.
func (d *Dispatch) WorkspaceBytes(a Args) (int, error) {
	if p, _ := d.Path(a); p != tiling.PathUnfused {
		return 0, nil
	}
	return d.Unfused.WorkspaceBytes(a)
}

// Launch enqueues one call on the path the plan takes at a's sizes.
func (d *Dispatch) Launch(a Args) error {
	if p, _ := d.Path(a); p == tiling.PathUnfused {
		up, err := d.Unfused.Plan(a)
		if err != nil {
			return err
		}
		return up.Launch()
	}
	p, err := d.Fused.Plan(a)
	if err != nil {
		return err
	}
	return p.Launch()
}

// Close frees the unfused path's own intermediates and unloads its
// kernels (once; later calls run every call fused); the fused kernel is
// its owner's to close.
func (d *Dispatch) Close() error {
	if d == nil || d.Unfused == nil {
		return nil
	}
	u := d.Unfused
	d.Unfused, d.Plan = nil, nil
	return errors.Join(u.Close(), u.Gemm.Close(), u.EW.Close())
}
