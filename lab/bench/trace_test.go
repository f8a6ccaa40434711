package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/swigen/swigen/manifest"
)

// put writes one record the way sw_trace_put lays it out.
func put(w []uint64, tiles, cta, c, t int, rec [10]uint64) {
	copy(w[((cta*2+c)*tiles+t)*traceWords:], rec[:])
}

func TestTraceSummary(t *testing.T) {
	const ctas, tiles = 2, 3
	w := make([]uint64, ctas*2*tiles*traceWords)
	// CTA 0, consumer 0: three tiles 2000 cycles apart, 1000 ns apart (2 GHz),
	// with %clock wrapping between the first and the second.
	start := uint64(1<<32 - 500)
	put(w, tiles, 0, 0, 0, [10]uint64{1000, start, 9, 9, 9, 9, 9, 9, 9, 9})
	put(w, tiles, 0, 0, 1, [10]uint64{2000, (start + 2000) % (1 << 32), 10, 1600, 200, 300, 40, 500, 80, 100})
	put(w, tiles, 0, 0, 2, [10]uint64{3000, (start + 4000) % (1 << 32), 30, 1800, 400, 500, 60, 700, 120, 300})
	// CTA 1, consumer 1: one tile only (no period, no clock estimate).
	put(w, tiles, 1, 1, 0, [10]uint64{1500, 7, 1, 1, 1, 1, 1, 1, 1, 1})

	recs, err := ParseTrace(w, manifest.TraceLayout{Ctas: ctas, Tiles: tiles, Words: traceWords})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	got := SummarizeTrace(recs)
	// The tail: CTA 0's consumer 0 ends at 3000 + (30+1800+500)/2 = 4165 ns,
	// CTA 1's consumer 1 at 1500 + 3/2 = 1501.5; the span is 1000-4165, so
	// the mean idle is (0 + 2663.5)/2 over 3165 ns.
	want := TraceSummary{Records: 4, ClockGHz: 2, Consumers: [2]TracePart{
		{Tiles: 2, Period: 2000, Order: 20, Mainloop: 1700, OperandWait: 300, Epilogue: 400, DeWait: 50, MmaWait: 600, Issue: 100, Drain: 200},
		{},
	}, TilesMin: 1, TilesMax: 3, TailIdlePct: 100 * 2663.5 / 2 / 3165,
		// The two first tiles: all 9s and all 1s.
		First: TracePart{Tiles: 2, Order: 5, Mainloop: 5, OperandWait: 5, Epilogue: 5, DeWait: 5, MmaWait: 5, Issue: 5, Drain: 5}, FirstLongest: 27}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	var b bytes.Buffer
	got.Print(&b)
	// 1700 cycles at 2 GHz is 0.85 us.
	if !strings.Contains(b.String(), "0.85") || !strings.Contains(b.String(), "SM clock 2.00 GHz") || !strings.Contains(b.String(), "1-3 tiles per CTA") {
		t.Errorf("printed summary lacks the mainloop's 0.85 us or the clock:\n%s", b.String())
	}
	// The first tiles at 2 GHz: 5 cycles, 0.0025 us; the longest 27 cycles.
	if !strings.Contains(b.String(), "first tiles (2, both consumers") || !strings.Contains(b.String(), "longest order+mainloop+epilogue 0.01") {
		t.Errorf("printed summary lacks the first tiles' line:\n%s", b.String())
	}

	if _, err := ParseTrace(w[:10], manifest.TraceLayout{Ctas: ctas, Tiles: tiles, Words: traceWords}); err == nil || !strings.Contains(err.Error(), "10 words") {
		t.Errorf("short buffer: err = %v, want one naming the 10 words", err)
	}
}

// TestParseTraceLayoutWords: a layout of another record size is refused.
func TestParseTraceLayoutWords(t *testing.T) {
	t.Parallel()
	if _, err := ParseTrace(make([]uint64, 2*2*11), manifest.TraceLayout{Ctas: 1, Tiles: 2, Words: 11}); err == nil || !strings.Contains(err.Error(), "records of 11 words") {
		t.Errorf("ParseTrace with 11-word records: %v", err)
	}
}

// TestTraceFirstTilesOnly: a trace of one tile a consumer (stream-K at
// decode sizes) has no clock estimate; its first tiles print in kcycles.
func TestTraceFirstTilesOnly(t *testing.T) {
	t.Parallel()
	recs := []TraceRecord{
		{CTA: 0, Consumer: 0, StartNs: 100, StartClock: 5, Order: 0, Mainloop: 30000, Epilogue: 2000},
		{CTA: 0, Consumer: 1, StartNs: 100, StartClock: 5, Order: 10000, Mainloop: 8000, Epilogue: 12000},
	}
	s := SummarizeTrace(recs)
	if s.ClockGHz != 0 || s.First.Tiles != 2 || s.First.Epilogue != 7000 || s.FirstLongest != 32000 {
		t.Fatalf("summary %+v: want no clock, 2 first tiles, mean epilogue 7000, longest 32000", s)
	}
	var b bytes.Buffer
	s.Print(&b)
	if !strings.Contains(b.String(), "mean kcycles") || !strings.Contains(b.String(), "epilogue 7.00; longest order+mainloop+epilogue 32.00") {
		t.Errorf("printed summary:\n%s", b.String())
	}
}
