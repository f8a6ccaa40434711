package mlp

import (
	"fmt"
	"io"
	"strings"

	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

// LedgerRun says what RunLedger checks, times and records.
type LedgerRun struct {
	Options
	// Shapes are the shapes whose step is timed, one ledger each.
	Shapes []tiling.Shape
	// Check first checks one whole step at CheckShape against the
	// float64 reference (Check); CheckOnly stops after it.
	Check, CheckOnly bool
	CheckShape       tiling.Shape
	// Record, when set, writes each ledger's record with the checks and
	// returns its path.
	Record func(led *Ledger, checks []CheckResult) (string, error)
	// Out takes the checks and the ledgers, Log the progress and the
	// warnings.
	Out, Log io.Writer
}

// RunLedger is bench mlp: the optional check, then the ceilings and each
// shape's ledger (Bench), printed as they come. sw is swigen's kernels
// (nil: the baseline everywhere). A failing all-baseline check stops the
// run (the harness itself is wrong); a failing check with swigen's
// kernels is reported and returned once the timing ran, since the
// ledger never picks a kernel whose output differs from the baseline's.
func RunLedger(env *Env, sw *Swigen, o LedgerRun) error {
	var checks []CheckResult
	var checkErr error
	if o.Check || o.CheckOnly {
		var err error
		checks, err = Check(env, sw, o.CheckShape, o.Options)
		if err != nil {
			return err
		}
		WriteChecks(o.Out, o.DType, o.RecomputeOut, checks)
		for _, c := range checks {
			if c.Pass {
				continue
			}
			checkErr = fmt.Errorf("bench mlp: check failed (%s step at %s): outputs differ from the float64 reference", c.Mode, c.Shape)
			if c.Mode == string(ImplBaseline) {
				return checkErr
			}
		}
		if checkErr != nil && !o.CheckOnly {
			fmt.Fprintf(o.Log, "warning: %v; timing anyway\n", checkErr)
		}
	}
	if o.CheckOnly {
		return checkErr
	}
	fmt.Fprintf(o.Log, "measuring ceilings (%s)...\n", o.DType)
	benv := &bench.Env{Ctx: env.Ctx, Dev: env.Dev, Base: baseline.Bwd{BLAS: env.BLAS, EW: env.DSwiGLU}}
	ceil, err := bench.MeasureCeilings(benv, o.DType, bench.Options{Reps: o.Reps, Warmup: o.Warmup, Seed: o.Seed})
	if err != nil {
		return err
	}
	bench.WriteCeilings(o.Out, o.DType, ceil)
	for _, sh := range o.Shapes {
		if err := o.shape(env, sw, sh, ceil, checks); err != nil {
			return err
		}
	}
	return checkErr
}

// shape times and prints the ledger at sh and writes its record.
func (o LedgerRun) shape(env *Env, sw *Swigen, sh tiling.Shape, ceil bench.Ceilings, checks []CheckResult) error {
	led, err := Bench(env, sw, sh, ceil, o.Options)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Out)
	if err := led.Render(o.Out); err != nil {
		return err
	}
	for _, w := range led.Warnings {
		fmt.Fprintf(o.Log, "warning: %s\n", w)
	}
	if o.Record != nil {
		name, err := o.Record(led, checks)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Log, "wrote %s\n", name)
	}
	return nil
}

// WriteChecks prints the checked steps cs of dtype dt: each one's
// verdict, the implementation of every segment and each output's error.
func WriteChecks(w io.Writer, dt tiling.DType, recompute bool, cs []CheckResult) {
	for _, c := range cs {
		verdict := "PASS"
		if !c.Pass {
			verdict = "FAIL"
		}
		mode := ""
		if recompute {
			mode = ", out recomputed by the backward"
		}
		fmt.Fprintf(w, "check %s %s step vs float64 reference (%s%s): %s\n", c.Shape, c.Mode, dt, mode, verdict)
		var used []string
		for i, s := range perfmodel.Segments() {
			if i < len(c.Used) {
				used = append(used, fmt.Sprintf("%s=%s", s, c.Used[i]))
			}
		}
		fmt.Fprintf(w, "  segments: %s\n", strings.Join(used, ", "))
		for _, oc := range c.Outputs {
			fmt.Fprintf(w, "  %-34s %s\n", oc.Name, oc.Stats)
		}
	}
}
