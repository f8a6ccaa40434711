package emit

import (
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// DispatchPlans is what emit --path auto ships with cfgs at shape (M,K,I
// as --shape takes it): the dispatch plans of the fused kernels whose
// measured plan takes the unfused path at some shape, and the gemm
// configs those paths need that cfgs lack. The wheel builder (gen/wheel)
// packages the same plans an emit would.
func DispatchPlans(cfgs []tiling.Config, shape string) ([]manifest.Dispatch, []tiling.Config, error) {
	o := &Options{Path: "auto"}
	o.Shape = shape
	ds, gemms, _, err := dispatchPlans(o, cfgs)
	return ds, gemms, err
}
