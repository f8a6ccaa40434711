package mlp

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

// Impl names which implementation ran a segment.
type Impl string

// The implementations.
const (
	ImplSwigen   Impl = "swigen"
	ImplBaseline Impl = "baseline"
)

// Timing is one timed kernel or kernel sequence.
type Timing struct {
	Name string
	Part
	T bench.Stats
}

// SegmentResult is one segment of the ledger: swigen's kernel (when there
// is one) and the baseline, timed in the same run on the same inputs.
type SegmentResult struct {
	Seg     Segment
	Cost    Part    // the segment's FLOPs and minimum bytes
	FloorUS float64 // max(FLOPs / GEMM rate, bytes / copy bandwidth)

	// Swigen is nil when swigen has no usable kernel for the segment;
	// SwigenNote then says why (and otherwise notes a mismatch, if any).
	Swigen       *Timing
	SwigenConfig string
	SwigenNote   string
	// RelErr is swigen's output against the baseline's on the same inputs
	// (relative Frobenius, worst output of the segment); -1 when not compared.
	RelErr float64

	Baseline Timing
	// Parts are the baseline's kernels timed alone, for segments of more
	// than one kernel.
	Parts []Timing

	// Chosen is the implementation the step uses: the faster one in this
	// run, among those that agree with the baseline.
	Chosen Impl
}

// ChosenTiming is the timing of the chosen implementation.
func (r *SegmentResult) ChosenTiming() Timing {
	if r.Chosen == ImplSwigen && r.Swigen != nil {
		return *r.Swigen
	}
	return r.Baseline
}

// Choose picks the faster implementation by median time; swigen only when
// it exists and agrees with the baseline within tol.
func (r *SegmentResult) Choose(tol float64) {
	r.Chosen = ImplBaseline
	if r.Swigen == nil || (r.RelErr >= 0 && !(r.RelErr <= tol)) {
		return
	}
	if r.Swigen.T.Median < r.Baseline.T.Median {
		r.Chosen = ImplSwigen
	}
}

// Ledger is the whole step's ledger.
type Ledger struct {
	Shape        tiling.Shape
	DType        tiling.DType
	RecomputeOut bool
	Ceil         bench.Ceilings
	Sets         int // rotated input sets (L2 cold)
	Segs         []SegmentResult
	// StepChosen and StepBaseline are the whole step timed end to end
	// (every segment back to back): with the chosen implementation of each
	// segment, and all-baseline. Zero N when not measured.
	StepChosen, StepBaseline bench.Stats
	Warnings                 []string
}

// FloorUS is the roofline floor of p in microseconds under c.
func FloorUS(p Part, c bench.Ceilings) float64 { return c.FloorUS(p.FLOPs, p.Bytes) }

// Total sums the segments of one phase (forward, backward or the step).
type Total struct {
	Name     string
	FLOPs    float64
	Bytes    float64 // the fused segments' minimum bytes
	FloorUS  float64 // sum of the segment floors
	Chosen   bench.Stats
	Baseline bench.Stats
	Speedup  float64 // baseline / chosen, by the summed medians
}

func addStats(a, b bench.Stats) bench.Stats {
	return bench.Stats{Median: a.Median + b.Median, P20: a.P20 + b.P20, P80: a.P80 + b.P80, N: max(a.N, b.N)}
}

// Totals returns the forward, backward and whole-step sums. The summed
// p20/p80 are the sums of the segments' quantiles: a band, not a quantile.
func (l *Ledger) Totals() []Total {
	tot := []Total{{Name: "forward"}, {Name: "backward"}, {Name: "step"}}
	for _, r := range l.Segs {
		idx := []int{1, 2}
		if r.Seg.Forward() {
			idx = []int{0, 2}
		}
		for _, i := range idx {
			t := &tot[i]
			t.FLOPs += r.Cost.FLOPs
			t.Bytes += r.Cost.Bytes
			t.FloorUS += r.FloorUS
			t.Chosen = addStats(t.Chosen, r.ChosenTiming().T)
			t.Baseline = addStats(t.Baseline, r.Baseline.T)
		}
	}
	for i := range tot {
		if tot[i].Chosen.Median > 0 {
			tot[i].Speedup = tot[i].Baseline.Median / tot[i].Chosen.Median
		}
	}
	return tot
}

// Row is one printed (and recorded) line of the ledger.
type Row struct {
	Segment  string  `json:"segment"`
	Impl     string  `json:"impl"` // swigen, baseline, baseline-part, total-chosen, total-baseline, step-chosen, step-baseline
	Name     string  `json:"name"`
	Chosen   bool    `json:"chosen,omitempty"`
	GFLOP    float64 `json:"gflop"`
	MB       float64 `json:"mb"`
	FloorUS  float64 `json:"floor_us"`
	US       float64 `json:"us"`
	P20US    float64 `json:"p20_us"`
	P80US    float64 `json:"p80_us"`
	TFLOPs   float64 `json:"tflops"`
	GBs      float64 `json:"gbs"`
	PctFloor float64 `json:"pct_of_floor"`
	N        int     `json:"reps,omitempty"`
}

func mkRow(seg, impl, name string, chosen bool, flops, bytes, floor float64, st bench.Stats) Row {
	r := Row{Segment: seg, Impl: impl, Name: name, Chosen: chosen, GFLOP: flops / 1e9, MB: bytes / 1e6,
		FloorUS: floor, US: st.Median, P20US: st.P20, P80US: st.P80, N: st.N}
	if st.Median > 0 {
		r.TFLOPs = perfmodel.TFLOPs(flops, st.Median)
		r.GBs = perfmodel.GBs(bytes, st.Median)
		r.PctFloor = perfmodel.PctOfFloor(floor, st.Median)
	}
	return r
}

// Rows flattens the ledger: per segment the swigen row (if any), the
// baseline row and its parts; then the totals and the end-to-end step.
// The swigen and baseline rows of a segment are measured against the
// segment's floor (the fused minimum), as in the seed: the baseline's
// extra traffic is what keeps it further from the floor. A baseline part
// (one kernel of it, timed alone) is measured against its own floor, which
// says how close that kernel runs to the GEMM rate or copy bandwidth.
func (l *Ledger) Rows() []Row {
	var rows []Row
	for _, r := range l.Segs {
		seg := r.Seg.String()
		if r.Swigen != nil {
			rows = append(rows, mkRow(seg, string(ImplSwigen), r.Swigen.Name, r.Chosen == ImplSwigen, r.Swigen.FLOPs, r.Swigen.Bytes, r.FloorUS, r.Swigen.T))
		}
		rows = append(rows, mkRow(seg, string(ImplBaseline), r.Baseline.Name, r.Chosen == ImplBaseline, r.Baseline.FLOPs, r.Baseline.Bytes, r.FloorUS, r.Baseline.T))
		for _, p := range r.Parts {
			rows = append(rows, mkRow(seg, "baseline-part", p.Name, false, p.FLOPs, p.Bytes, FloorUS(p.Part, l.Ceil), p.T))
		}
	}
	for _, t := range l.Totals() {
		rows = append(rows, mkRow(t.Name, "total-chosen", "chosen per segment (sum)", true, t.FLOPs, t.Bytes, t.FloorUS, t.Chosen))
		rows = append(rows, mkRow(t.Name, "total-baseline", "baseline (sum)", false, t.FLOPs, t.Bytes, t.FloorUS, t.Baseline))
	}
	if l.StepChosen.N > 0 {
		tot := l.Totals()[2]
		rows = append(rows, mkRow("step", "step-chosen", "chosen, end to end", true, tot.FLOPs, tot.Bytes, tot.FloorUS, l.StepChosen))
		rows = append(rows, mkRow("step", "step-baseline", "baseline, end to end", false, tot.FLOPs, tot.Bytes, tot.FloorUS, l.StepBaseline))
	}
	return rows
}

// Speedup is the step's baseline time over the chosen implementations'
// time: end to end when measured, else by the summed medians.
func (l *Ledger) Speedup() float64 {
	if l.StepChosen.N > 0 && l.StepChosen.Median > 0 {
		return l.StepBaseline.Median / l.StepChosen.Median
	}
	return l.Totals()[2].Speedup
}

const nameW = 40

func fit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// Render writes the ledger as a text table, the seed's 实现账本: one block
// per segment (the chosen implementation marked with *), then the totals.
func (l *Ledger) Render(w io.Writer) error {
	var b strings.Builder
	M, K, I := l.Shape.M, l.Shape.K, l.Shape.I
	outNote := "out saved by the forward"
	if l.RecomputeOut {
		outNote = "out recomputed by the backward"
	}
	fmt.Fprintf(&b, "MLP training step  M=%d K=%d I=%d  %s  (%s; %d rotated input sets)\n", M, K, I, l.DType, outNote, l.Sets)
	fmt.Fprintf(&b, "floor = max(FLOPs / %.0f TFLOP/s, bytes / %.0f GB/s) of the segment's fused minimum bytes (a baseline part: its own); %%floor = floor / time\n",
		l.Ceil.GemmTFLOPs, l.Ceil.CopyGBs)
	fmt.Fprintf(&b, "  %-*s %8s %8s %8s %9s %19s %8s %7s %6s\n", nameW, "segment / implementation", "GFLOP", "MB", "floor us", "us", "p20-p80", "TFLOP/s", "GB/s", "%floor")
	line := func(indent, mark, name string, r Row) {
		fmt.Fprintf(&b, "%s%-*s %8.1f %8.1f %8.1f %9.1f %9.1f-%-9.1f %8.1f %7.0f %5.0f%%\n",
			mark, nameW, fit(indent+name, nameW), r.GFLOP, r.MB, r.FloorUS, r.US, r.P20US, r.P80US, r.TFLOPs, r.GBs, r.PctFloor)
	}
	mark := func(c bool) string {
		if c {
			return "* "
		}
		return "  "
	}
	rows := l.Rows()
	i := 0
	for _, r := range l.Segs {
		fmt.Fprintf(&b, "%s: %s\n", r.Seg, r.Seg.Math(l.RecomputeOut))
		if r.Swigen != nil {
			line("  ", mark(rows[i].Chosen), "swigen", rows[i])
			i++
		}
		line("  ", mark(rows[i].Chosen), rows[i].Name, rows[i])
		i++
		for range r.Parts {
			line("    ", "  ", rows[i].Name, rows[i])
			i++
		}
		if r.Swigen != nil {
			fmt.Fprintf(&b, "    swigen kernel %s", r.SwigenConfig)
			if r.RelErr >= 0 && !math.IsInf(r.RelErr, 0) {
				fmt.Fprintf(&b, "; output vs baseline rel err %.2e", r.RelErr)
			}
			b.WriteString("\n")
		}
		if r.SwigenNote != "" {
			fmt.Fprintf(&b, "    %s\n", r.SwigenNote)
		}
	}
	fmt.Fprintln(&b, "totals (sum of segment medians; * = the faster implementation of each segment)")
	for ; i < len(rows); i++ {
		r := rows[i]
		line("  ", mark(r.Chosen), r.Segment+": "+r.Name, r)
	}
	tot := l.Totals()
	fmt.Fprintf(&b, "speedup baseline / chosen: forward %.2fx, backward %.2fx, step %.2fx", tot[0].Speedup, tot[1].Speedup, tot[2].Speedup)
	if l.StepChosen.N > 0 {
		fmt.Fprintf(&b, "; step end to end %.2fx", l.Speedup())
	}
	b.WriteString("\n")
	var used []string
	for _, r := range l.Segs {
		used = append(used, fmt.Sprintf("%s=%s", r.Seg, r.Chosen))
	}
	fmt.Fprintf(&b, "implementation per segment: %s\n", strings.Join(used, ", "))
	kept, saved := perfmodel.Activations(l.Shape, l.RecomputeOut)
	if l.RecomputeOut {
		fmt.Fprintf(&b, "activations kept for the backward: x + de = %.1f MB; out recomputed in the backward epilogue saves M*I*2 = %.1f MB\n", kept/1e6, saved/1e6)
	} else {
		fmt.Fprintf(&b, "activations kept for the backward: x + de + out = %.1f MB (--recompute-out would save M*I*2 = %.1f MB)\n", kept/1e6, 2*float64(M)*float64(I)/1e6)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
