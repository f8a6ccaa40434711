package main

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// benchPlan times the dispatch plan's unfused path beside the fused
// kernel (tiling.PlanFor): it builds each unfused gemm config once and
// says, per shape, which path the plan takes and what that path measured.
type benchPlan struct {
	force tiling.Path // --path: "" lets the plan decide
	off   bool        // a probe run times the fused kernel only
	gemms gemmCache
}

// gemmFor returns the plan for cfg at sh and the loaded gemm kernel of
// its unfused path (nil for kinds without one, or with a probe).
func (p *benchPlan) gemmFor(ctx context.Context, cfg tiling.Config, sh tiling.Shape) (tiling.Plan, *launch.Kernel, error) {
	pl, err := tiling.PlanFor(cfg, sh, p.force)
	if err != nil {
		return tiling.Plan{}, nil, usageError(fmt.Errorf("bench: %w", err))
	}
	if p.off || pl.Gemm.Kernel == "" {
		return pl, nil, nil
	}
	k, err := p.gemms.get(ctx, pl.Gemm)
	if err != nil {
		return tiling.Plan{}, nil, fmt.Errorf("bench: %w", err)
	}
	return pl, k, nil
}

func (p *benchPlan) close() { p.gemms.close() }

func printPlan(e *env, rep *bench.BwdReport, r bench.PlanOutcome) {
	if rep.Unfused == nil {
		return
	}
	u := rep.Unfused
	fmt.Fprintf(e.stdout, "plan %s (%s): fused %.1f us, unfused %.1f us (gemm %.1f us, %s; rel err %.2e); the plan's path %.2fx the baseline",
		r.Path, r.Why, rep.Rows[0].T.Median, u.US, u.GemmUS, u.Gemm, u.RelErr, r.Speedup)
	if r.Measured != r.Path {
		fmt.Fprintf(e.stdout, " (this run alone would take %s)", r.Measured)
	}
	fmt.Fprintln(e.stdout)
}
