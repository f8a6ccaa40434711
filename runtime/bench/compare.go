package bench

import (
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/num"
	"github.com/swigen/swigen/tiling"
)

// CompareOutputs downloads n 16-bit elements of swigen's output got and of
// the baseline's output want, computed from the same inputs, and compares
// them with the baseline as the reference. The caller synchronizes first.
func CompareOutputs(ctx *cu.Context, dt tiling.DType, got, want cu.DevicePtr, n int) (num.ErrStats, error) {
	g := make([]byte, 2*n)
	w := make([]byte, 2*n)
	if err := ctx.MemcpyDtoH(g, got); err != nil {
		return num.ErrStats{}, err
	}
	if err := ctx.MemcpyDtoH(w, want); err != nil {
		return num.ErrStats{}, err
	}
	return num.CompareRawBoth(dt, g, w), nil
}
