package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/tune"
	"github.com/swigen/swigen/tiling"
)

// modeNote says what a kind's kernels store in this mode, after sep, or
// nothing for kinds whose mode needs no word (bwd_dswiglu and gemm without
// --store-out). fwd_gateup always says, since its default is inference.
func modeNote(k tiling.Kernel, storeOut bool, sep string) string {
	switch {
	case k == tiling.KernelFwdGateUp && storeOut:
		return sep + "training: de and out stored (--store-out)"
	case k == tiling.KernelFwdGateUp:
		return sep + "inference: only out stored (--store-out for training)"
	case storeOut:
		return sep + "the recomputed out also stored (--store-out)"
	}
	return ""
}

func storeOutFlag(storeOut bool) string {
	if storeOut {
		return " --store-out"
	}
	return ""
}

// storeOutNote tells how --store-out changed the space: its re-fitted
// operand rings can merge or add candidates.
func storeOutNote(o *tuneOptions, without int) string {
	if !o.StoreOut {
		return ""
	}
	return fmt.Sprintf(", --store-out; %d without it", without)
}

// pruneNote says how many candidates the static model left out.
func pruneNote(pruned []tune.Pruned) string {
	if len(pruned) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d left out by the prune model (--exhaustive keeps them)", len(pruned))
}

func hangNote(o *tuneOptions) string {
	if o.IncludeHangTest {
		return ", + the hang test"
	}
	return ""
}

// progressLine describes one finished candidate, with an ETA from the
// mean time per candidate so far in its round (elapsed: since the round
// began; compiles included).
func progressLine(p tune.Progress, elapsed time.Duration) string {
	r := p.Result
	var what string
	switch r.Status {
	case tune.StatusOK:
		what = fmt.Sprintf("ok %8.1f us", r.US)
		if r.BaselineUS > 0 {
			what += fmt.Sprintf("  %.2fx baseline", r.BaselineUS/r.US)
		}
	case tune.StatusSlow:
		what = fmt.Sprintf("slow (%.1f us, stopped early)", r.US)
	default:
		what = string(r.Status) + ": " + strings.Join(strings.Fields(r.Error), " ")
		if r := []rune(what); len(r) > 160 {
			what = string(r[:159]) + "…"
		}
	}
	eta := time.Duration(float64(elapsed) / float64(p.Done) * float64(p.Total-p.Done)).Round(time.Second)
	best := ""
	if p.Best.Status == tune.StatusOK {
		best = fmt.Sprintf("  (best %.1f us)", p.Best.US)
	}
	return fmt.Sprintf("[%d/%d, ETA %v] %s  %s%s  dev %d, %.1fs", p.Done, p.Total, eta, r.Config, what, best, r.Device, r.WallS)
}

// tuneBar is the progress bar on a terminal; elsewhere (a log file) only
// the per-candidate lines, which carry the ETA themselves.
type tuneBar struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newTuneBar(w io.Writer, n int) *tuneBar {
	t := &tuneBar{w: w}
	if f, ok := w.(*os.File); ok && n > 0 {
		if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeCharDevice != 0 {
			t.bar = progressbar.NewOptions(n,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("tuning"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionClearOnFinish())
			t.bar.RenderBlank()
		}
	}
	return t
}

func (t *tuneBar) line(s string) {
	if t.bar != nil {
		t.bar.Clear()
	}
	fmt.Fprintln(t.w, s)
	if t.bar != nil {
		t.bar.Add(1)
	}
}

func (t *tuneBar) finish() {
	if t.bar != nil {
		t.bar.Finish()
	}
}

// shapeDims names a tuned shape's sizes as the kernel kind's command line
// takes them: M,K,I, or M,N,K for a gemm (whose N is kept in I's place).
func shapeDims(k tiling.Kernel, s tiling.Shape) string {
	if k == tiling.KernelGEMM {
		return fmt.Sprintf("M=%d N=%d K=%d", s.M, s.I, s.K)
	}
	return fmt.Sprintf("M=%d K=%d I=%d", s.M, s.K, s.I)
}

func printTuneSummary(e *env, o *tuneOptions, g tuneGPU, tc *toolchain.Toolchain, res *tune.SweepResult, shape tiling.Shape, took time.Duration) {
	w := e.stdout
	en := res.Entry
	k := en.Key
	base := "cuBLAS GEMM + elementwise"
	switch k.Kernel {
	case tiling.KernelGEMM:
		base = "cuBLAS GEMM on the same layouts"
	case tiling.KernelFwdGateUp:
		base = "cuBLAS GEMM + SwiGLU elementwise"
	}
	fmt.Fprintf(w, "\n%s %s %s %s on %s, driver %d, %s, templates %.12s%s\n",
		k.Kernel, k.Arch, k.DType, shapeDims(k.Kernel, shape), g.Name, g.Driver, k.Compiler, k.Templates, modeNote(k.Kernel, k.StoreOut, "; "))
	if en.Ceilings.Known() {
		fmt.Fprintf(w, "ceilings: cuBLAS 8192^3 %.0f TFLOP/s, device copy %.0f GB/s; roofline floor %.1f us\n",
			en.Ceilings.GemmTFLOPs, en.Ceilings.CopyGBs, en.FloorUS(""))
	}
	if b := en.BaselineUS(); b > 0 {
		fmt.Fprintf(w, "baseline (%s, timed in each candidate's run): median %.1f us\n", base, b)
	}
	fmt.Fprintln(w)
	tune.WriteTable(w, en)
	fmt.Fprintln(w)

	counts := map[tune.Status]int{}
	for _, r := range en.Results {
		counts[r.Status]++
	}
	var parts []string
	for _, s := range []tune.Status{tune.StatusOK, tune.StatusSlow, tune.StatusWrong, tune.StatusCompile, tune.StatusFault, tune.StatusTimeout} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	fmt.Fprintf(w, "this run: %d candidates measured in %v, %d skipped (already in the DB); the DB holds %d for this key: %s\n",
		res.Ran, took.Round(time.Second), len(res.Plan.Skipped), len(en.Results), strings.Join(parts, ", "))
	best, ok := en.Best()
	prov, provOK := en.Provisional()
	switch {
	case !ok && provOK:
		// Stopped while screening: the ranking so far is worth printing,
		// but a screened time is too short to be a winner.
		line := fmt.Sprintf("winner: none yet (stopped before a full measurement); provisional best: %s  %.1f us (screened)", prov.Config, prov.US)
		if prov.BaselineUS > 0 {
			line += fmt.Sprintf(", %.2fx the baseline", prov.BaselineUS/prov.US)
		}
		fmt.Fprintln(w, line+"; run the same command again to finish")
	case !ok:
		fmt.Fprintln(w, "winner: none (no candidate passed)")
	default:
		line := fmt.Sprintf("winner: %s  %.1f us", best.Config, best.US)
		if best.BaselineUS > 0 {
			line += fmt.Sprintf(", %.2fx the baseline", best.BaselineUS/best.US)
		}
		if f := en.FloorUS(best.Config); f > 0 {
			line += fmt.Sprintf(", %.0f%% of the roofline floor", 100*f/best.US)
		}
		fmt.Fprintln(w, line)
		if h, err := tune.HeuristicFor(k); err == nil {
			r, ok := en.Result(h.Name())
			switch {
			case ok && r.Status == tune.StatusOK:
				fmt.Fprintf(w, "heuristic: %s  %.1f us (the winner is %.2fx faster)\n", h.Name(), r.US, r.US/best.US)
			case ok:
				fmt.Fprintf(w, "heuristic: %s (%s)\n", h.Name(), r.Status)
			default:
				fmt.Fprintf(w, "heuristic: %s (not among the candidates)\n", h.Name())
			}
		}
	}
	// emit's --shape is M,K,I for every kind (a gemm's N in I's place).
	kind := ""
	if k.Kernel != tiling.KernelBwdDSwiGLU {
		kind = " --kernel " + string(k.Kernel)
	}
	fmt.Fprintf(w, "DB: %s  (use it: swigen emit --tuned %s%s --arch %s --dtype %s --shape %d,%d,%d%s)\n",
		o.DB, o.DB, kind, k.Arch, k.DType, shape.M, shape.K, shape.I, storeOutFlag(k.StoreOut))
}

// printSuiteLine is one tuned shape of tune --suite: its winner (or the
// provisional best, or none) against the baseline.
func printSuiteLine(e *env, res *tune.SweepResult) {
	fmt.Fprintln(e.stdout, suiteRow(res.Entry))
}

func suiteRow(en *tune.Entry) string {
	sh := en.Key.Shape
	dims := fmt.Sprintf("%6d,%5d,%6d", sh.M, sh.K, sh.I)
	best, ok := en.Best()
	label := ""
	if !ok {
		if best, ok = en.Provisional(); !ok {
			return fmt.Sprintf("%s  winner: none (no candidate passed)", dims)
		}
		label = " (provisional: screened only)"
	}
	speedup := 0.0
	if best.BaselineUS > 0 {
		speedup = best.BaselineUS / best.US
	}
	return fmt.Sprintf("%s  %-62s %8.1f us  base %8.1f us  %5.2fx%s", dims, best.Config, best.US, best.BaselineUS, speedup, label)
}

// printSuiteSummary closes tune --suite: every shape's winner, and the
// winners' speedups over the baseline (min, geomean).
func printSuiteSummary(e *env, o *tuneOptions, done []*tune.SweepResult, took time.Duration) {
	w := e.stdout
	fmt.Fprintf(w, "\nsuite: %d shapes tuned in %v (winners; speedup = baseline / winner, same run)\n", len(done), took.Round(time.Second))
	var sp []shapeSpeedup
	for _, res := range done {
		fmt.Fprintln(w, suiteRow(res.Entry))
		if best, ok := res.Entry.Best(); ok && best.BaselineUS > 0 {
			sp = append(sp, shapeSpeedup{res.Entry.Key.Shape, best.BaselineUS / best.US})
		}
	}
	printSpeedupStats(e, "tuned winner", sp)
	fmt.Fprintf(w, "DB: %s  (swigen tune table %s turns it into the heuristic's table)\n", o.DB, o.DB)
}
