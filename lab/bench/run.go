package bench

import (
	"context"
	"fmt"
	"github.com/swigen/swigen/internal/badinput"
	"io"
	"strings"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Job is one config and the shapes it is timed at, with what chose the
// config (a results DB's notes, say).
type Job struct {
	Config tiling.Config
	Shapes []tiling.Shape
	Notes  []string
}

// RunOptions say how Run builds, times and records each job. Build is
// required; the other functions have defaults.
type RunOptions struct {
	Options
	// Probe is the probe every kernel was built with ("" for none); with
	// "trace" or "epitrace" each shape's per-tile timings follow its report, and with
	// any probe the unfused path is not timed.
	Probe string
	// Path is the dispatch path the plan line and the plan speedups
	// report (tiling.PlanFor's force; "" lets the plan decide).
	Path tiling.Path
	// Build builds and loads cfg's kernel (with Probe).
	Build func(ctx context.Context, cfg tiling.Config) (*launch.Kernel, error)
	// Gemm returns the loaded kernel of the unfused path's gemm config;
	// nil times the fused kernel only.
	Gemm func(ctx context.Context, cfg tiling.Config) (*launch.Kernel, error)
	// Time times k at sh; nil is BenchBwd on Run's env. Another kind's
	// benchmark returns its report in BwdReport's form.
	Time func(k *launch.Kernel, sh tiling.Shape, c Ceilings, o Options) (*BwdReport, error)
	// Ceilings measures the ceilings of dt; nil is MeasureCeilings.
	Ceilings func(dt tiling.DType) (Ceilings, error)
	// Record, when set, is given each result (a record to write).
	Record func(cfg tiling.Config, rep *BwdReport, pr PlanOutcome) error
	// Out takes the reports, Log the progress and the warnings.
	Out, Log io.Writer
}

// InputError is bad input found only once the GPU is known (a forced
// path the kind lacks, a config of another arch): not a failure to
// measure.
type InputError = badinput.Error

// run is the state of one Run: the ceilings measured so far, the
// summary lines and the speedups.
type run struct {
	o                      RunOptions
	ceilings               map[tiling.DType]Ceilings
	summary, unbuilt       []string
	speedups, planSpeedups []ShapeSpeedup
}

// Run times each job's config at each of its shapes against the
// baseline, with the dispatch plan's unfused path beside it, printing
// every report as it comes and then the summary (median times, speedups
// and their minimum and geometric mean). The ceilings are measured once
// per dtype before its first config. A config that does not build is
// skipped (reported, and Run's error once the rest ran); any other error
// stops the run.
func Run(ctx context.Context, env *Env, jobs []Job, o RunOptions) error {
	if o.Build == nil {
		return fmt.Errorf("bench: run: no Build function")
	}
	if o.Time == nil {
		o.Time = func(k *launch.Kernel, sh tiling.Shape, c Ceilings, po Options) (*BwdReport, error) {
			return BenchBwd(env, k, sh, c, po)
		}
	}
	if o.Ceilings == nil {
		o.Ceilings = func(dt tiling.DType) (Ceilings, error) { return MeasureCeilings(env, dt, o.Options) }
	}
	r := &run{o: o, ceilings: map[tiling.DType]Ceilings{}}
	for _, job := range jobs {
		if err := r.job(ctx, job); err != nil {
			return err
		}
	}
	fmt.Fprintln(o.Out, "\nsummary (median; speedup = baseline / swigen):")
	for _, l := range r.summary {
		fmt.Fprintln(o.Out, l)
	}
	WriteSpeedupStats(o.Out, "fused kernel", r.speedups)
	WriteSpeedupStats(o.Out, "dispatch plan", r.planSpeedups)
	if len(r.unbuilt) > 0 {
		return fmt.Errorf("bench: %d of %d configs did not build: %s", len(r.unbuilt), len(jobs), strings.Join(r.unbuilt, ", "))
	}
	return nil
}

// job builds job's config and times it at each of its shapes.
func (r *run) job(ctx context.Context, job Job) error {
	cfg := job.Config
	c, ok := r.ceilings[cfg.DType]
	if !ok {
		fmt.Fprintf(r.o.Log, "measuring ceilings (%s)...\n", cfg.DType)
		var err error
		if c, err = r.o.Ceilings(cfg.DType); err != nil {
			return err
		}
		r.ceilings[cfg.DType] = c
		WriteCeilings(r.o.Out, cfg.DType, c)
	}
	k, err := r.o.Build(ctx, cfg)
	if err != nil {
		// One config that does not build (a spill the build check
		// rejects, say) must not cost the others their run.
		fmt.Fprintf(r.o.Log, "skipping %s: %v\n", cfg.Name(), err)
		r.summary = append(r.summary, fmt.Sprintf("%-60s not built (see above)", cfg.Name()))
		r.unbuilt = append(r.unbuilt, cfg.Name())
		return nil
	}
	defer k.Close()
	for _, sh := range job.Shapes {
		if err := r.shape(ctx, k, cfg, sh, c); err != nil {
			return err
		}
	}
	return nil
}

// shape times k, cfg's kernel, at sh with the plan's unfused path.
func (r *run) shape(ctx context.Context, k *launch.Kernel, cfg tiling.Config, sh tiling.Shape, c Ceilings) error {
	trace := k.Man.Trace != nil // the trace and epitrace probes
	if trace {
		if err := k.ClearTrace(); err != nil {
			return err
		}
	}
	pl, gk, err := r.plan(ctx, cfg, sh)
	if err != nil {
		return err
	}
	po := r.o.Options
	po.Gemm = gk
	rep, err := r.o.Time(k, sh, c, po)
	if err != nil {
		return err
	}
	rep.Write(r.o.Out, r.o.Log, cfg)
	pr := NewPlanOutcome(pl, rep)
	pr.WritePlan(r.o.Out, rep)
	if trace {
		// Every timed launch wrote the same records; the buffer holds
		// the last one's.
		if err := WriteTrace(r.o.Out, k); err != nil {
			return err
		}
	}
	r.summary = append(r.summary, summaryLine(cfg, sh, rep, pr))
	if rep.Unfused != nil {
		r.planSpeedups = append(r.planSpeedups, ShapeSpeedup{Shape: sh, Speedup: pr.Speedup, Kernel: cfg.Kernel})
	}
	r.speedups = append(r.speedups, ShapeSpeedup{Shape: sh, Speedup: rep.Speedup, Kernel: cfg.Kernel})
	if r.o.Record != nil {
		return r.o.Record(cfg, rep, pr)
	}
	return nil
}

// plan is the dispatch plan for cfg at sh and the loaded gemm kernel of
// its unfused path (nil for kinds without one, with a probe, or without
// a Gemm function).
func (r *run) plan(ctx context.Context, cfg tiling.Config, sh tiling.Shape) (tiling.Plan, *launch.Kernel, error) {
	pl, err := tiling.PlanFor(cfg, sh, r.o.Path)
	if err != nil {
		return tiling.Plan{}, nil, &InputError{Err: fmt.Errorf("bench: %w", err)}
	}
	if r.o.Probe != "" || pl.Gemm.Kernel == "" || r.o.Gemm == nil {
		return pl, nil, nil
	}
	k, err := r.o.Gemm(ctx, pl.Gemm)
	if err != nil {
		return tiling.Plan{}, nil, fmt.Errorf("bench: %w", err)
	}
	return pl, k, nil
}
