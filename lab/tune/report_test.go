package tune

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

func TestRows(t *testing.T) {
	t.Parallel()
	e := sampleDB().Entry(testKey())
	rows := Rows(e)
	var got []string
	for _, r := range rows {
		got = append(got, string(r.Status)+" "+r.Config)
	}
	want := []string{"ok " + nameB, "ok " + nameA, "slow " + nameC, "timeout " + nameH}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("row order (-want +got):\n%s", diff)
	}
	r := rows[0]
	s := testKey().Shape
	if wantT := 2 * float64(s.M) * float64(s.K) * float64(s.I) / 250e-6 / 1e12; math.Abs(r.TFLOPs-wantT) > 1e-9 {
		t.Errorf("TFLOP/s %v, want %v", r.TFLOPs, wantT)
	}
	if math.Abs(r.Speedup-347.0/250) > 1e-12 || r.PctFloor <= 0 || r.PctFloor > 100 {
		t.Errorf("speedup %v, %%floor %v", r.Speedup, r.PctFloor)
	}
	if rows[2].US != 900 || rows[2].Speedup != 0 || rows[3].US != 0 {
		t.Errorf("slow/failed rows: %+v %+v", rows[2], rows[3])
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteTable(&b, sampleDB().Entry(testKey())); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, want := range [][]string{
		{"config", "us", "TFLOP/s", "% of floor", "vs baseline", "status"},
		{nameB, "250.0", "1.39x", "ok"},
		{nameA, "269.4", "ok"},
		{nameC, "900.0", "slow: stopped early"},
		{nameH, "timeout: no result within 1m0s"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
}

// svgDoc is the part of the SVG the structural test reads.
type svgDoc struct {
	XMLName xml.Name  `xml:"svg"`
	Width   int       `xml:"width,attr"`
	Height  int       `xml:"height,attr"`
	Rects   []svgRect `xml:"rect"`
	Lines   []svgLine `xml:"line"`
	Texts   []svgText `xml:"text"`
}

type svgRect struct {
	Class string  `xml:"class,attr"`
	X     float64 `xml:"x,attr"`
	Y     float64 `xml:"y,attr"`
	W     string  `xml:"width,attr"`
	Title string  `xml:"title"`
}

type svgLine struct {
	Class string  `xml:"class,attr"`
	X1    float64 `xml:"x1,attr"`
	X2    float64 `xml:"x2,attr"`
}

type svgText struct {
	Class string `xml:"class,attr"`
	Body  string `xml:",chardata"`
}

func TestSVG(t *testing.T) {
	t.Parallel()
	e := sampleDB().Entry(testKey())
	e.Set(Result{Config: "bwd_dswiglu_<weird>&", Status: StatusCompile, Error: `ptxas "error" <here> & there`})
	out := SVG(e, "swigen tune <report>")
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, out)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); !ok || len(bytes.TrimSpace(cd)) > 0 {
			t.Fatalf("content after </svg>: %v %v", tok, err)
		}
	}
	var bars, slow []svgRect
	for _, r := range doc.Rects {
		switch r.Class {
		case "bar":
			bars = append(bars, r)
		case "slow":
			slow = append(slow, r)
		}
	}
	if len(bars) != 2 || len(slow) != 1 {
		t.Fatalf("%d bars and %d slow bars, want 2 and 1", len(bars), len(slow))
	}
	// Sorted: the fastest on top, widths proportional to time.
	w := func(r svgRect) float64 { v, _ := strconv.ParseFloat(r.W, 64); return v }
	if !(bars[0].Y < bars[1].Y && bars[1].Y < slow[0].Y) || !strings.Contains(bars[0].Title, nameB) {
		t.Errorf("bars not sorted by time: %+v", bars)
	}
	if got, want := w(bars[1])/w(bars[0]), 269.4/250; math.Abs(got-want) > 0.01 {
		t.Errorf("bar width ratio %v, want %v", got, want)
	}
	// The floor and baseline lines sit at their times on the bars' scale.
	lines := map[string]svgLine{}
	for _, l := range doc.Lines {
		lines[l.Class] = l
	}
	floor, base := lines["floor"], lines["baseline"]
	if floor.X1 == 0 || base.X1 == 0 || floor.X1 != floor.X2 {
		t.Fatalf("floor %+v baseline %+v", floor, base)
	}
	scale := w(bars[0]) / 250
	x0 := bars[0].X
	if got, want := base.X1, x0+scale*e.BaselineUS(); math.Abs(got-want) > 0.2 {
		t.Errorf("baseline line at %v, want %v", got, want)
	}
	if got, want := floor.X1, x0+scale*e.FloorUS(nameB); math.Abs(got-want) > 0.2 {
		t.Errorf("floor line at %v, want %v", got, want)
	}
	// Failures are listed with their status; text is escaped.
	var failed []string
	all := ""
	for _, x := range doc.Texts {
		all += x.Body + "\n"
		if x.Class == "failed" {
			failed = append(failed, x.Body)
		}
	}
	if len(failed) != 2 || !strings.Contains(all, `compile: ptxas "error" <here> & there`) || !strings.Contains(all, "bwd_dswiglu_<weird>&") {
		t.Errorf("failed rows %q; texts:\n%s", failed, all)
	}
	if !strings.Contains(all, "swigen tune <report>") || !strings.Contains(all, "NVIDIA H200") {
		t.Errorf("title or key missing:\n%s", all)
	}
	if doc.Height < 84+5*18 {
		t.Errorf("height %d too small for 5 rows", doc.Height)
	}
	if !bytes.Equal(out, SVG(e, "swigen tune <report>")) {
		t.Error("SVG is not deterministic")
	}
	// An entry with no results still renders.
	if err := xml.Unmarshal(SVG(&Entry{Key: testKey()}, "empty"), &svgDoc{}); err != nil {
		t.Errorf("empty entry: %v", err)
	}
}

func TestNiceCeil(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]float64{0: 1, 1: 1, 1.2: 2, 3: 5, 7: 10, 270: 500, 1500: 2000, 0.03: 0.05} {
		if got := niceCeil(in); math.Abs(got-want) > 1e-12 {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want Status
	}{
		{&timeoutErr, StatusTimeout},
		{&compileErr, StatusCompile},
		{io.ErrUnexpectedEOF, StatusFault},
	} {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}

var (
	timeoutErr = cu.TimeoutError{What: "k", After: time.Second}
	compileErr = launch.CompileError{Err: errors.New("nvcc failed")}
)

// TestSVGGemmDims: a gemm report names its sizes M, N, K (Shape.I is N).
func TestSVGGemmDims(t *testing.T) {
	t.Parallel()
	k := testKey()
	k.Kernel, k.Shape = tiling.KernelGEMM, tiling.Shape{M: 4096, K: 768, I: 4608}
	if out := string(SVG(&Entry{Key: k}, "t")); !strings.Contains(out, "M=4096 N=4608 K=768") {
		t.Errorf("gemm report without M=4096 N=4608 K=768:\n%s", out)
	}
}
