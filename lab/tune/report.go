package tune

import (
	"bytes"
	"cmp"
	"fmt"
	"github.com/swigen/swigen/perfmodel"
	"html"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// Row is one line of the results table.
type Row struct {
	Config   string
	Status   Status
	US       float64 // median (for StatusSlow: the early-stop probe); 0 if none
	TFLOPs   float64
	PctFloor float64 // floor / time, percent
	Speedup  float64 // baseline / time, baseline measured in the same run
	Error    string
	Screened bool // a screening measurement (Result.Screened)
}

// Rows returns e's results in table order: passing full measurements by
// time, then passing screening ones by time, then the early-stopped by
// probe time, then the failures by name.
func Rows(e *Entry) []Row {
	flops := e.FLOPs()
	rows := make([]Row, 0, len(e.Results))
	for _, r := range e.Results {
		row := Row{Config: r.Config, Status: r.Status, Error: r.Error, Screened: r.Screened}
		if r.Status == StatusOK || r.Status == StatusSlow {
			row.US = r.US
		}
		if r.Status == StatusOK && r.US > 0 {
			if flops > 0 {
				row.TFLOPs = perfmodel.TFLOPs(flops, r.US)
			}
			if f := e.FloorUS(r.Config); f > 0 {
				row.PctFloor = perfmodel.PctOfFloor(f, r.US)
			}
			if r.BaselineUS > 0 {
				row.Speedup = r.BaselineUS / r.US
			}
		}
		rows = append(rows, row)
	}
	rank := func(r Row) int {
		switch {
		case r.Status == StatusOK && !r.Screened:
			return 0
		case r.Status == StatusOK:
			return 1
		case r.Status == StatusSlow:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		if rank(a) < 3 {
			if c := cmp.Compare(a.US, b.US); c != 0 {
				return c
			}
		}
		return strings.Compare(a.Config, b.Config)
	})
	return rows
}

// WriteTable writes e's results as an aligned table: config, µs, TFLOP/s,
// % of the roofline floor, speedup vs the baseline, status (and reason).
func WriteTable(w io.Writer, e *Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	io.WriteString(tw, "config\tus\tTFLOP/s\t% of floor\tvs baseline\tstatus\n")
	num := func(v float64, format string) string {
		if v <= 0 {
			return "-"
		}
		return fmt.Sprintf(format, v)
	}
	for _, r := range Rows(e) {
		status := string(r.Status)
		if r.Status != StatusOK && r.Error != "" {
			status += ": " + oneLine(r.Error, 100)
		}
		if r.Screened {
			status += " (screening only)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Config, num(r.US, "%.1f"), num(r.TFLOPs, "%.0f"),
			num(r.PctFloor, "%.0f%%"), num(r.Speedup, "%.2fx"), status)
	}
	return tw.Flush()
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// SVG layout, in pixels.
const (
	svgWidth     = 1060
	svgLabelW    = 430 // config names, right-aligned at this x
	svgPlotW     = 440 // bar area
	svgRowH      = 18
	svgTop       = 84
	svgBottomPad = 52
)

// SVG renders e as a horizontal bar chart, one row per config: passing
// configs sorted by time (blue), early-stopped ones at their probe time
// (grey), failures as a labelled row without a bar (red). Two vertical
// lines mark the roofline floor and the baseline (cuBLAS + elementwise);
// the x axis is time in µs from 0. The SVG is self-contained and
// deterministic.
func SVG(e *Entry, title string) []byte {
	rows := Rows(e)
	floor := e.FloorUS("")
	if best, ok := e.Best(); ok {
		floor = e.FloorUS(best.Config)
	}
	base := e.BaselineUS()
	// The scale fits the passing configs and both lines; early-stopped
	// ones (3x the best or more) would squash it, so their bars are cut
	// at the edge and labelled with their time.
	xmax := math.Max(floor, base)
	for _, r := range rows {
		if r.Status == StatusOK {
			xmax = math.Max(xmax, r.US)
		}
	}
	if xmax <= 0 {
		for _, r := range rows {
			xmax = math.Max(xmax, r.US)
		}
	}
	if xmax <= 0 {
		xmax = 1
	}
	xmax = niceCeil(xmax * 1.05)
	x := func(us float64) float64 { return svgLabelW + 10 + us/xmax*svgPlotW }

	plotH := len(rows) * svgRowH
	height := svgTop + plotH + svgBottomPad
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	esc := html.EscapeString
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="11">`+"\n",
		svgWidth, height, svgWidth, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title))
	k := e.Key
	p(`<text x="10" y="38">%s</text>`+"\n", esc(fmt.Sprintf("%s %s %s %s | %s, driver %d, %s | templates %.12s",
		k.Kernel, k.Arch, k.DType, ShapeDims(k.Kernel, k.Shape), k.GPU, k.Driver, k.Compiler, k.Templates)))
	ok := 0
	for _, r := range rows {
		if r.Status == StatusOK {
			ok++
		}
	}
	p(`<text x="10" y="54">%s</text>`+"\n", esc(fmt.Sprintf("%d configs, %d passed; median time per config (µs), shorter is better", len(rows), ok)))

	// Axis and grid.
	y0, y1 := svgTop, svgTop+plotH
	for i := 0; i <= 5; i++ {
		v := xmax * float64(i) / 5
		xi := x(v)
		p(`<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", xi, y0, xi, y1)
		p(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", xi, y1+14, trimFloat(v))
	}
	p(`<text x="%.1f" y="%d" text-anchor="middle">µs</text>`+"\n", x(xmax/2), y1+28)

	for i, r := range rows {
		y := svgTop + i*svgRowH
		ty := y + svgRowH - 5
		p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", svgLabelW, ty, esc(r.Config))
		switch r.Status {
		case StatusOK, StatusSlow:
			fill, class := "#4477aa", "bar"
			if r.Status == StatusSlow {
				fill, class = "#aaaaaa", "slow"
			}
			p(`<rect class="%s" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
				class, x(0), y+2, x(math.Min(r.US, xmax))-x(0), svgRowH-4, fill, esc(fmt.Sprintf("%s: %.1f µs (%s)", r.Config, r.US, r.Status)))
			label := fmt.Sprintf("%.1f", r.US)
			if r.Status == StatusSlow {
				label = fmt.Sprintf("slow: %.0f, stopped early", r.US)
			} else if r.Speedup > 0 {
				label += fmt.Sprintf(" %.2fx", r.Speedup)
			}
			p(`<text x="%.1f" y="%d">%s</text>`+"\n", x(math.Min(r.US, xmax))+4, ty, esc(label))
		default:
			p(`<text class="failed" x="%.1f" y="%d" fill="#cc3311">%s</text>`+"\n", x(0)+4, ty,
				esc(string(r.Status)+": "+oneLine(r.Error, 70)))
		}
	}
	line := func(class, color, label string, us float64, dy int) {
		if us <= 0 {
			return
		}
		xi := x(us)
		p(`<line class="%s" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="6,3"/>`+"\n",
			class, xi, y0-4, xi, y1, color)
		p(`<text x="%.1f" y="%d" fill="%s" text-anchor="middle">%s</text>`+"\n", xi, y0-6-dy, color, esc(fmt.Sprintf("%s %.1f", label, us)))
	}
	line("floor", "#228833", "roofline floor", floor, 12)
	line("baseline", "#cc3311", "baseline", base, 0)
	p("</svg>\n")
	return b.Bytes()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, so the five axis
// ticks fall on round numbers.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}
