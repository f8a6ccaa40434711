package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/swigen/swigen/tiling"
)

// Dispatch is the dispatch plan of one fused kernel of an emitted package
// (the index's "dispatch" list): which path a call takes at its shape, and
// the kernels of the unfused path. A loader in any language follows it:
// the nearest point to the call's M, K, I in log space decides, if it is
// within tiling.MaxMeasuredDistance, for the unfused path only where its
// measured unfused speedup clears tiling.RequiredMargin at that distance;
// elsewhere, or with no points, the fused kernel; Force, when set,
// overrides both (tiling.ChoosePath).
type Dispatch struct {
	// Fused and Gemm name kernels of the package (index entries): the
	// fused kernel and the unfused path's gemm kernel.
	Fused string `json:"fused"`
	Gemm  string `json:"gemm"`
	// Elementwise is the cubin file of the elementwise module
	// (runtime/elementwise) for the fused kernel's arch; its entry point
	// is swigen_<op>_<dtype>_<vec8|scalar>, op dswiglu for bwd_dswiglu and
	// swiglu for fwd_gateup.
	Elementwise string `json:"elementwise"`
	// Force is the path every call takes when emit was told one (--path).
	Force tiling.Path `json:"force,omitempty"`
	// Rule says the rule in words, for a reader of the file.
	Rule string `json:"rule"`
	// Points are the measured shapes, their paths and the unfused path's
	// measured speedups.
	Points []tiling.PlanPoint `json:"points"`
}

// DispatchRule is Dispatch.Rule's text.
const DispatchRule = "the point nearest to the call's M,K,I in log space (sqrt of the summed squared natural logs of the size ratios) decides if within ln 2: unfused only if its path is unfused and ln(unfused_speedup) >= sqrt(0.03^2 + (0.05*distance)^2); else fused; force overrides"

// Choose is the path a call at s takes, and why (tiling.ChoosePathForced).
func (d *Dispatch) Choose(s tiling.Shape) (tiling.Path, string) {
	return tiling.ChoosePathForced(d.Points, s, d.Force)
}

// Check checks what a loader relies on: both kernel names, the cubin
// file, a known force, and points with valid shapes and known paths.
func (d *Dispatch) Check() error {
	if d.Fused == "" || d.Gemm == "" || d.Elementwise == "" {
		return fmt.Errorf("manifest: dispatch %q: fused, gemm and elementwise must all be named", d.Fused)
	}
	if d.Force != "" && d.Force != tiling.PathFused && d.Force != tiling.PathUnfused {
		return fmt.Errorf("manifest: dispatch %s: force %q: want fused or unfused", d.Fused, d.Force)
	}
	for i, p := range d.Points {
		if err := p.Shape.Validate(); err != nil {
			return fmt.Errorf("manifest: dispatch %s: point %d: %w", d.Fused, i, err)
		}
		if p.Path != tiling.PathFused && p.Path != tiling.PathUnfused {
			return fmt.Errorf("manifest: dispatch %s: point %d: path %q: want fused or unfused", d.Fused, i, p.Path)
		}
		if !(p.UnfusedSpeedup >= 0) || math.IsInf(p.UnfusedSpeedup, 1) {
			return fmt.Errorf("manifest: dispatch %s: point %d: unfused_speedup %v: want a finite number >= 0", d.Fused, i, p.UnfusedSpeedup)
		}
		if p.Path == tiling.PathUnfused && !(p.UnfusedSpeedup > 1) {
			return fmt.Errorf("manifest: dispatch %s: point %d: path unfused with unfused_speedup %v: want over 1", d.Fused, i, p.UnfusedSpeedup)
		}
	}
	return nil
}

// ParseDispatch decodes and checks one Dispatch (as the Go bindings embed
// it), rejecting unknown fields.
func ParseDispatch(b []byte) (*Dispatch, error) {
	var d Dispatch
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("manifest: dispatch: %w", err)
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	return &d, nil
}
