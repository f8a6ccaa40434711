package tune

import (
	"fmt"
	"io"
	"time"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
)

// Bar shows a round's progress: one line per finished candidate, and
// Finish at the round's end.
type Bar interface {
	Line(s string)
	Finish()
}

// TextReporter is the Reporter of swigen tune: the tune's progress on
// Log, each shape's summary (or suite row) and the suite's summary on Out.
type TextReporter struct {
	Out, Log io.Writer
	// Run is the tune reported on (its flags are named in the lines).
	Run *RunOptions
	// Timeout is the per-candidate limit of the runner.
	Timeout time.Duration
	// Report, when set, is where a one-shape tune's SVG plot goes.
	Report string
	// NewBar makes a round's progress bar on Log for n jobs (nil: only
	// the lines).
	NewBar func(w io.Writer, n int) Bar
	// Speedups prints the suite winners' speedups (nil: not printed).
	Speedups func(what string, xs []ShapeSpeedup)
}

// Events prints a shape's tune: what runs where, the selection, the
// screening, and each round's progress.
func (t *TextReporter) Events(key Key, space, without int) ShapeEvents {
	o, w := t.Run, t.Log
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return ShapeEvents{
		Sharded: func(kept, cands int) {
			fmt.Fprintf(w, "tune: %s %s %s at %s on %s, driver %d, %s, templates %.12s%s\n",
				key.Kernel, key.Arch, key.DType, ShapeDims(key.Kernel, key.Shape), key.GPU, key.Driver, key.Compiler, key.Templates, ModeNote(key.Kernel, o.StoreOut, "; "))
			if cands == 0 {
				fmt.Fprintf(w, "tune: shard %s has no candidate at %s: the prune model keeps %d, all in other shards\n", o.ShardFlag, ShapeDims(key.Kernel, key.Shape), kept)
			}
		},
		Planned: func(cands []tiling.Config, pruned []Pruned, plan Plan, screen bool) {
			fmt.Fprintf(w, "tune: %d candidates of %d in the space (filter %q, max %d, shard %s%s%s%s); %d already in %s, %d to run on device(s) %s; per-candidate limit %v\n",
				len(cands), space, o.Filter, o.Max, o.ShardFlag, t.storeOutNote(without), pruneNote(pruned), t.hangNote(), len(plan.Skipped), o.DBPath, len(plan.Run), join.Ints(o.Devices), t.Timeout)
			if screen {
				fmt.Fprintf(w, "tune: screening with %d repetitions each, then measuring the best %d and the heuristic's config fully (--exhaustive measures every candidate fully)\n",
					ScreenReps, o.ScreenKeep)
			}
		},
		Round: func(_ bool, n int) (func(Progress), func()) {
			bar := t.bar(n)
			// The ETA is this round's: a screening job is shorter than a full
			// one, so the tune's mean so far would mislead the final round.
			roundStart := now()
			return func(p Progress) { bar.Line(ProgressLine(p, now().Sub(roundStart))) }, bar.Finish
		},
	}
}

// ShapeDone prints a shape's summary and writes its report, or in a
// suite, its row.
func (t *TextReporter) ShapeDone(res *SweepResult, took time.Duration) error {
	if len(t.Run.Shapes) > 1 {
		fmt.Fprintln(t.Out, SuiteRow(res.Entry))
		return nil
	}
	WriteSummary(t.Out, res, t.Run.DBPath, took)
	if t.Report == "" || len(res.Entry.Results) == 0 {
		return nil
	}
	if err := WriteReport(t.Report, res.Entry); err != nil {
		return err
	}
	fmt.Fprintf(t.Out, "report: %s\n", t.Report)
	return nil
}

// SuiteDone prints every shape's winner and the winners' speedups over
// the baseline.
func (t *TextReporter) SuiteDone(done []*SweepResult, took time.Duration) {
	sp := WriteSuiteSummary(t.Out, done, took)
	if t.Speedups != nil {
		t.Speedups("tuned winner", sp)
	}
	fmt.Fprintf(t.Out, "DB: %s  (swigen tune table %s turns it into the heuristic's table)\n", t.Run.DBPath, t.Run.DBPath)
}

func (t *TextReporter) bar(n int) Bar {
	if t.NewBar != nil {
		return t.NewBar(t.Log, n)
	}
	return lineBar{t.Log}
}

// lineBar is a Bar of lines alone.
type lineBar struct{ w io.Writer }

func (b lineBar) Line(s string) { fmt.Fprintln(b.w, s) }
func (lineBar) Finish()         {}

// storeOutNote tells how StoreOut changed the space: its re-fitted
// operand rings can merge or add candidates.
func (t *TextReporter) storeOutNote(without int) string {
	if !t.Run.StoreOut {
		return ""
	}
	return fmt.Sprintf(", --store-out; %d without it", without)
}

// pruneNote says how many candidates the static model left out.
func pruneNote(pruned []Pruned) string {
	if len(pruned) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d left out by the prune model (--exhaustive keeps them)", len(pruned))
}

func (t *TextReporter) hangNote() string {
	if t.Run.HangTest {
		return ", + the hang test"
	}
	return ""
}
