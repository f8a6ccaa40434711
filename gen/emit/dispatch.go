package emit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// dispatchPlans returns the dispatch plans of cfgs' fused kernels that
// ship their unfused path, the gemm configs that path needs and cfgs
// lack, and a note per plan. With --path auto a kernel ships it when the
// measured table's points of that kernel and its unfused gemm take the
// unfused path at one shape (tiling.MeasuredTable.PlanPoints); fused
// ships none; unfused ships it and forces it. --catalog emits the catalog
// as is.
func dispatchPlans(o *Options, cfgs []tiling.Config) ([]manifest.Dispatch, []tiling.Config, []string, error) {
	if o.Changed["path"] && strings.TrimSpace(o.Path) == "" {
		return nil, nil, nil, errors.New("--path is empty; want auto, fused or unfused")
	}
	force, err := tiling.ParsePath(o.Path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--%w", err)
	}
	if force == tiling.PathUnfused {
		for _, k := range o.Kernels {
			if !tiling.HasUnfused(tiling.Kernel(k)) {
				return nil, nil, nil, fmt.Errorf("--path unfused: %s has no unfused path (only %s)", k, tiling.Words(tiling.UnfusedKinds()))
			}
		}
	}
	if o.Catalog || force == tiling.PathFused {
		return nil, nil, nil, nil
	}
	shape, err := tiling.ParseShape(o.Shape)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--shape: %w", err)
	}
	t, err := tiling.Measured()
	if err != nil {
		return nil, nil, nil, err
	}
	have := map[string]bool{}
	for _, c := range cfgs {
		have[c.Name()] = true
	}
	var ds []manifest.Dispatch
	var extra []tiling.Config
	var notes []string
	for _, c := range cfgs {
		if !tiling.HasUnfused(c.Kernel) {
			continue
		}
		g, _, err := tiling.UnfusedGemm(c, shape)
		if err != nil {
			return nil, nil, nil, err
		}
		pts := t.PlanPoints(c, g)
		unfused := 0
		for _, p := range pts {
			if p.Path == tiling.PathUnfused {
				unfused++
			}
		}
		if force == "" && unfused == 0 {
			continue
		}
		if !have[g.Name()] {
			have[g.Name()] = true
			extra = append(extra, g)
		}
		ds = append(ds, manifest.Dispatch{Fused: c.Name(), Gemm: g.Name(), Elementwise: gen.ElementwiseCubin(c.Arch),
			Force: force, Rule: manifest.DispatchRule, Points: pts})
		note := fmt.Sprintf("dispatch: %s ships its unfused path, so %s and the elementwise module are written too: the plan takes that path at %d of the %d shapes where these two kernels were timed (%s); --path fused writes the fused kernel only", c.Name(), g.Name(), unfused, len(pts), unfusedShapes(pts))
		if force != "" {
			note = fmt.Sprintf("dispatch: %s: every call takes the unfused path (%s + the elementwise kernel; --path unfused)", c.Name(), g.Name())
		}
		notes = append(notes, note)
	}
	return ds, extra, notes, nil
}

// unfusedShapes lists the plan points that take the unfused path, as
// M,K,I shapes.
func unfusedShapes(pts []tiling.PlanPoint) string {
	var out []string
	for _, p := range pts {
		if p.Path == tiling.PathUnfused {
			out = append(out, fmt.Sprintf("%d,%d,%d", p.Shape.M, p.Shape.K, p.Shape.I))
		}
	}
	return strings.Join(out, ", ")
}
