package mlp

import (
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// BwdReport is r in bench's report form: the same rows (swigen,
// baseline, its GEMM, its elementwise kernel) and fields, so bench.Run
// prints and records fwd_gateup as it does bwd_dswiglu.
func (r *FwdGateUpReport) BwdReport() *bench.BwdReport {
	return &bench.BwdReport{Shape: r.Shape, Config: r.Config, Ceil: r.Ceil, FloorUS: r.FloorUS, Rows: r.Rows, Speedup: r.Speedup,
		RelErr: r.RelErr, Sets: r.Sets, Grid: r.Grid, Unfused: r.Unfused, Warnings: r.Warnings}
}

// TimeFwdGateUp is BenchFwdGateUp on env in the form of
// bench.RunOptions.Time. env needs Ctx, Dev, BLAS and SwiGLU.
func TimeFwdGateUp(env *Env) func(k *launch.Kernel, s tiling.Shape, c bench.Ceilings, o bench.Options) (*bench.BwdReport, error) {
	return func(k *launch.Kernel, s tiling.Shape, c bench.Ceilings, o bench.Options) (*bench.BwdReport, error) {
		r, err := BenchFwdGateUp(env, k, s, c, o)
		if err != nil {
			return nil, err
		}
		return r.BwdReport(), nil
	}
}
