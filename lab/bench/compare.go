package bench

import (
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// CompareOutputs compares n dt elements of swigen's output got with
// the baseline's output want, computed from the same inputs, with the
// baseline as the reference: on the GPU with cmp (nothing is downloaded;
// the result has no worst index), or, with a nil cmp, by downloading both
// to the host. The caller synchronizes first; the GPU comparison waits at
// most timeout.
func CompareOutputs(ctx *cu.Context, cmp *Comparer, dt tiling.DType, got, want cu.DevicePtr, n int, timeout time.Duration) (num.ErrStats, error) {
	if cmp != nil {
		return cmp.Compare(dt, got, want, n, timeout)
	}
	g := make([]byte, n*dt.Size())
	w := make([]byte, n*dt.Size())
	if err := ctx.MemcpyDtoH(g, got); err != nil {
		return num.ErrStats{}, err
	}
	if err := ctx.MemcpyDtoH(w, want); err != nil {
		return num.ErrStats{}, err
	}
	return num.CompareRawBoth(dt, g, w), nil
}
