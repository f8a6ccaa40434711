package tune

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/swigen/swigen/tiling"
)

// ModeNote says what a kind's kernels store in this mode, after sep, or
// nothing for kinds whose mode needs no word (bwd_dswiglu and gemm without
// StoreOut). fwd_gateup always says, since its default is inference.
func ModeNote(k tiling.Kernel, storeOut bool, sep string) string {
	note := k.Mode(storeOut)
	if note == "" {
		return ""
	}
	return sep + note
}

// StoreOutFlag is the --store-out flag of a command line that asks for
// storeOut, with its leading space, or nothing.
func StoreOutFlag(storeOut bool) string {
	if storeOut {
		return " --store-out"
	}
	return ""
}

// ShapeDims names a tuned shape's sizes as the kernel kind's command line
// takes them: M,K,I, or M,N,K for a gemm (whose N is kept in I's place).
func ShapeDims(k tiling.Kernel, s tiling.Shape) string { return tiling.ShapeDims(k, s) }

// ProgressLine describes one finished candidate, with an ETA from the
// mean time per candidate so far in its round (elapsed: since the round
// began; compiles included).
func ProgressLine(p Progress, elapsed time.Duration) string {
	r := p.Result
	var what string
	switch r.Status {
	case StatusOK:
		what = fmt.Sprintf("ok %8.1f us", r.US)
		if r.BaselineUS > 0 {
			what += fmt.Sprintf("  %.2fx baseline", r.BaselineUS/r.US)
		}
	case StatusSlow:
		what = fmt.Sprintf("slow (%.1f us, stopped early)", r.US)
	default:
		what = string(r.Status) + ": " + strings.Join(strings.Fields(r.Error), " ")
		if r := []rune(what); len(r) > 160 {
			what = string(r[:159]) + "…"
		}
	}
	eta := time.Duration(float64(elapsed) / float64(p.Done) * float64(p.Total-p.Done)).Round(time.Second)
	best := ""
	if p.Best.Status == StatusOK {
		best = fmt.Sprintf("  (best %.1f us)", p.Best.US)
	}
	return fmt.Sprintf("[%d/%d, ETA %v] %s  %s%s  dev %d, %.1fs", p.Done, p.Total, eta, r.Config, what, best, r.Device, r.WallS)
}

// WriteReport writes the SVG plot of e's results to path.
func WriteReport(path string, e *Entry) error {
	k := e.Key
	title := fmt.Sprintf("swigen tune: %s %s %s, %s%s", k.Kernel, k.Arch, k.DType, ShapeDims(k.Kernel, k.Shape), ModeNote(k.Kernel, k.StoreOut, ", "))
	if err := os.WriteFile(path, SVG(e, title), 0o644); err != nil {
		return fmt.Errorf("tune: write report: %w", err)
	}
	return nil
}

// WriteSummary writes the end of a one-shape tune: the key, the ceilings
// and the baseline, the table, what this run did (took: the tune's time),
// the winner (or the provisional best when stopped while screening)
// against the heuristic, and how to use the DB at dbPath.
func WriteSummary(w io.Writer, res *SweepResult, dbPath string, took time.Duration) {
	en := res.Entry
	k := en.Key
	spec, _ := tiling.KindOf(k.Kernel)
	base, dims := spec.Baseline, ShapeDims(k.Kernel, k.Shape)
	if k.Experts > 0 {
		base, dims = GroupedBaseline, fmt.Sprintf("%s E=%d, %s routing", dims, k.Experts, k.Routing)
	}
	fmt.Fprintf(w, "\n%s %s %s %s on %s, driver %d, %s, templates %.12s%s\n",
		k.Kernel, k.Arch, k.DType, dims, k.GPU, k.Driver, k.Compiler, k.Templates, ModeNote(k.Kernel, k.StoreOut, "; "))
	if en.Ceilings.Known() {
		fmt.Fprintf(w, "ceilings: cuBLAS 8192^3 %.0f TFLOP/s, device copy %.0f GB/s; roofline floor %.1f us\n",
			en.Ceilings.GemmTFLOPs, en.Ceilings.CopyGBs, en.FloorUS(""))
	}
	if b := en.BaselineUS(); b > 0 {
		fmt.Fprintf(w, "baseline (%s, timed in each candidate's run): median %.1f us\n", base, b)
	}
	fmt.Fprintln(w)
	WriteTable(w, en)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "this run: %d candidates measured in %v, %d skipped (already in the DB); the DB holds %d for this key: %s\n",
		res.Ran, took.Round(time.Second), len(res.Plan.Skipped), len(en.Results), statusCounts(en))
	writeWinner(w, en)
	// emit's --shape is in the kind's order (tiling.ShapeOrder: M,N,K for
	// gemm), the order tune read it in.
	kind := ""
	if k.Kernel != tiling.DefaultKernel() {
		kind = " --kernel " + string(k.Kernel)
	}
	fmt.Fprintf(w, "DB: %s  (use it: swigen emit --tuned %s%s --arch %s --dtype %s --shape %s%s)\n",
		dbPath, dbPath, kind, k.Arch, k.DType, tiling.FormatKindShape(k.Kernel, k.Shape), StoreOutFlag(k.StoreOut))
}

// statusCounts counts en's results by status, in a fixed order.
func statusCounts(en *Entry) string {
	counts := map[Status]int{}
	for _, r := range en.Results {
		counts[r.Status]++
	}
	var parts []string
	for _, s := range []Status{StatusOK, StatusSlow, StatusWrong, StatusCompile, StatusFault, StatusTimeout} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	return strings.Join(parts, ", ")
}

// writeWinner writes the winner's line and the heuristic's against it.
func writeWinner(w io.Writer, en *Entry) {
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
		return
	case !ok:
		fmt.Fprintln(w, "winner: none (no candidate passed)")
		return
	}
	line := fmt.Sprintf("winner: %s  %.1f us", best.Config, best.US)
	if best.BaselineUS > 0 {
		line += fmt.Sprintf(", %.2fx the baseline", best.BaselineUS/best.US)
	}
	if f := en.FloorUS(best.Config); f > 0 {
		line += fmt.Sprintf(", %.0f%% of the roofline floor", 100*f/best.US)
	}
	fmt.Fprintln(w, line)
	h, err := HeuristicFor(en.Key)
	if err != nil {
		return
	}
	r, ok := en.Result(h.Name())
	switch {
	case ok && r.Status == StatusOK:
		fmt.Fprintf(w, "heuristic: %s  %.1f us (the winner is %.2fx faster)\n", h.Name(), r.US, r.US/best.US)
	case ok:
		fmt.Fprintf(w, "heuristic: %s (%s)\n", h.Name(), r.Status)
	default:
		fmt.Fprintf(w, "heuristic: %s (not among the candidates)\n", h.Name())
	}
}
