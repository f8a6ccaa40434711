package tune

import (
	"fmt"
	"math"

	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// GroupedBaseline is what a grouped kind is timed against, in words (the
// tune help and docs/DESIGN.md#tuning say the same): what a Go user
// without swigen's grouped kernel runs, and lab/baseline launches.
const GroupedBaseline = "a per-expert loop of cuBLAS GEMMs, then the SwiGLU or dSwiGLU elementwise kernel over all rows (moe_gemm: the loop alone)"

// measureGrouped times a verified grouped kernel k at the job's shape and
// routing, interleaved with GroupedBaseline on the same inputs, into out.
// The baseline's outputs are not compared with the kernel's (the weights'
// paired layout differs from a plain GEMM's): check.Verify has checked the
// kernel against the float64 reference before.
func measureGrouped(env *MeasureEnv, k *launch.Kernel, j Job, reps int) (Output, error) {
	var out Output
	sh := groupedTimingShape(j.Config.Kernel, j.Shape, j.Experts)
	counts, err := RoutingCounts(j.Routing, sh[0], sh[3])
	if err != nil {
		return out, err
	}
	g, err := check.NewGroupedRun(env.Check, k, sh, counts)
	if err != nil {
		return out, err
	}
	defer g.Close()
	base, err := groupedBaseline(env, g, j.Config.DType, j.Config.MajorB == tiling.MNMajor)
	if err != nil {
		return out, err
	}
	kt, bt, err := g.TimeAB(reps, base)
	if err != nil {
		return out, err
	}
	out.US, out.P20US, out.P80US = quantile(kt, 0.5), quantile(kt, 0.2), quantile(kt, 0.8)
	out.BaselineUS = quantile(bt, 0.5)
	return out, nil
}

// needsSwiGLU reports whether measuring kind k needs the SwiGLU
// elementwise kernel: fwd_gateup's baseline, and the grouped forward's
// (GroupedBaseline).
func needsSwiGLU(k tiling.Kernel) bool {
	s, _ := tiling.KindOf(k)
	return s.Elementwise == "swiglu" || (s.Grouped && s.Family == "gateup")
}

// groupedTimingShape is the (T, K, I, E) check.NewGroupedRun reads (T, N,
// K, E for moe_gemm) from a key's shape (T, K, I; a gemm's N in I).
func groupedTimingShape(k tiling.Kernel, s tiling.Shape, experts int) [4]int {
	if spec, _ := tiling.KindOf(k); spec.Family == "gemm" {
		return [4]int{s.M, s.I, s.K, experts}
	}
	return [4]int{s.M, s.K, s.I, experts}
}

// quantile is the q-quantile of sorted xs (0 for none).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[min(len(xs)-1, int(math.Floor(q*float64(len(xs)))))]
}

// groupedBaseline is GroupedBaseline on g's buffers: the GEMMs write each
// expert's rows of the kernel's own output (moe_gemm's C, training's de)
// or of a scratch intermediate, then the elementwise kernel writes the
// kernel's other outputs, all on the default stream.
func groupedBaseline(env *MeasureEnv, g *check.GroupedRun, dt tiling.DType, mnB bool) (func() error, error) {
	blas := env.Bench.Base.BLAS
	if blas == nil {
		return nil, fmt.Errorf("tune: grouped baseline: the worker has no cuBLAS")
	}
	el := dt.Size()
	at := func(p cu.DevicePtr, elems int) cu.DevicePtr { return p + cu.DevicePtr(el*elems) }
	perExpert := func(gemm func(e, off, rows int) error) error {
		off := 0
		for e, rows := range g.Counts {
			if rows > 0 {
				if err := gemm(e, off, rows); err != nil {
					return err
				}
			}
			off += rows
		}
		return nil
	}
	switch a := g.Args.(type) {
	case launch.MoEFwdGateUpArgs:
		if env.SwiGLU == nil {
			return nil, fmt.Errorf("tune: grouped baseline: the worker has no SwiGLU elementwise kernel")
		}
		de := a.De
		if de == 0 {
			var err error
			if de, err = g.AllocElems(a.T * 2 * a.I); err != nil {
				return nil, err
			}
		}
		return func() error {
			err := perExpert(func(e, off, rows int) error {
				return blas.GemmRowMajor(dt, true, rows, 2*a.I, a.K, at(a.X, off*a.K), at(a.W, e*2*a.I*a.K), at(de, off*2*a.I), nil)
			})
			if err != nil {
				return err
			}
			return env.SwiGLU.Run(dt, a.T, a.I, de, a.Out, nil)
		}, nil
	case launch.MoEBwdArgs:
		dout, err := g.AllocElems(a.T * a.I)
		if err != nil {
			return nil, err
		}
		return func() error {
			err := perExpert(func(e, off, rows int) error {
				// W_down [E,K,I]: expert e's [K,I] is dout's B as stored.
				return blas.GemmRowMajor(dt, false, rows, a.I, a.K, at(a.Dy, off*a.K), at(a.WDown, e*a.K*a.I), at(dout, off*a.I), nil)
			})
			if err != nil {
				return err
			}
			return env.Bench.Base.EW.Run(dt, a.T, a.I, dout, a.De, a.GradDe, a.Out, nil)
		}, nil
	case launch.MoEGemmArgs:
		return func() error {
			return perExpert(func(e, off, rows int) error {
				// B [E,N,K] (K-major): C = A @ B[e]^T; [E,K,N] with mnB.
				return blas.GemmRowMajor(dt, !mnB, rows, a.N, a.K, at(a.A, off*a.K), at(a.B, e*a.N*a.K), at(a.C, off*a.N), nil)
			})
		}, nil
	}
	return nil, fmt.Errorf("tune: grouped baseline: no baseline for %T", g.Args)
}
