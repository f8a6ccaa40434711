package bench

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/swigen/swigen/manifest"
)

// TraceRecord is one consumer's timings of one tile, written by an sm_90a
// kernel built with the trace probe (templates/probes/trace.cuh.tmpl,
// sw_trace_put). The durations are SM clock cycles.
type TraceRecord struct {
	CTA, Consumer, Tile int
	StartNs             uint64 // %globaltimer at the tile's start
	StartClock          uint32 // %clock at the tile's start
	// Order is the ping-pong order wait (0 under overlap); Mainloop the
	// k-loop (under overlap it includes the pending epilogue's slices);
	// OperandWait the waits for operand stages; Epilogue the epilogue
	// (under overlap: the slices); DeWait the waits for the epilogue's
	// operands; MmaWait the waits for the previous k-block's wgmmas; Issue
	// the wgmma issue (fence to commit); Drain the wait for the last
	// k-block's wgmmas (under overlap with the packing of dout).
	Order, Mainloop, OperandWait, Epilogue, DeWait, MmaWait, Issue, Drain uint32
}

// traceWords is the size in 8-byte words of the record TraceRecord reads.
const traceWords = 10

// ParseTrace splits a trace buffer of ctas x 2 x tiles records into the
// records that were written (a zero start time marks an unwritten one).
func ParseTrace(words []uint64, l manifest.TraceLayout) ([]TraceRecord, error) {
	if l.Words != traceWords {
		return nil, fmt.Errorf("bench: trace: records of %d words, want %d (TraceRecord)", l.Words, traceWords)
	}
	ctas, tiles := l.Ctas, l.Tiles
	if want := ctas * 2 * tiles * traceWords; len(words) != want {
		return nil, fmt.Errorf("bench: trace: %d words, want %d (%d CTAs x 2 consumers x %d tiles x %d)", len(words), want, ctas, tiles, traceWords)
	}
	var recs []TraceRecord
	for cta := 0; cta < ctas; cta++ {
		for c := 0; c < 2; c++ {
			for t := 0; t < tiles; t++ {
				w := words[((cta*2+c)*tiles+t)*traceWords:]
				if w[0] == 0 {
					continue
				}
				recs = append(recs, TraceRecord{CTA: cta, Consumer: c, Tile: t, StartNs: w[0], StartClock: uint32(w[1]),
					Order: uint32(w[2]), Mainloop: uint32(w[3]), OperandWait: uint32(w[4]), Epilogue: uint32(w[5]),
					DeWait: uint32(w[6]), MmaWait: uint32(w[7]), Issue: uint32(w[8]), Drain: uint32(w[9])})
			}
		}
	}
	return recs, nil
}

// TracePart is one consumer's mean per-tile timings in cycles, over its
// tiles after the first (which also waits for the pipeline to fill).
type TracePart struct {
	Tiles                                                                 int
	Period                                                                float64 // start of a tile to the start of the next
	Order, Mainloop, OperandWait, Epilogue, DeWait, MmaWait, Issue, Drain float64
}

// TraceSummary condenses a trace.
type TraceSummary struct {
	Records   int
	Consumers [2]TracePart
	ClockGHz  float64 // SM clock from %clock against %globaltimer over each consumer's tiles
	// TilesMin and TilesMax are the fewest and most tiles one CTA (both
	// its consumers) ran; TailIdlePct is how long the CTAs' SMs sat idle
	// at the end, on average, while the last CTA finished (the last wave's
	// imbalance), as a share of the traced span. Per CTA, not per
	// consumer: a ping-pong consumer waiting for its partner's last
	// mainloop leaves no tensor core idle.
	TilesMin, TilesMax int
	TailIdlePct        float64
	// First is the mean of every consumer's first tile (both consumers
	// together; Period unused), and FirstLongest the longest first tile's
	// order wait + mainloop + epilogue, in cycles: where each consumer runs
	// one tile (stream-K at decode sizes: one item a consumer, a partial
	// item recording nothing), these are all the records, and an owner's
	// "epilogue" holds its fixup (the flags, the partials' adds).
	First        TracePart
	FirstLongest float64
}

// mean is p's sums over its Tiles (Period apart).
func (p TracePart) mean() TracePart {
	if p.Tiles > 0 {
		n := float64(p.Tiles)
		p.Order, p.Mainloop, p.OperandWait = p.Order/n, p.Mainloop/n, p.OperandWait/n
		p.Epilogue, p.DeWait, p.MmaWait = p.Epilogue/n, p.DeWait/n, p.MmaWait/n
		p.Issue, p.Drain = p.Issue/n, p.Drain/n
	}
	return p
}

// SummarizeTrace averages the records per consumer.
func SummarizeTrace(recs []TraceRecord) TraceSummary {
	s := TraceSummary{Records: len(recs)}
	type key struct{ cta, c int }
	runs := map[key][]TraceRecord{}
	for _, r := range recs {
		runs[key{r.CTA, r.Consumer}] = append(runs[key{r.CTA, r.Consumer}], r)
	}
	var sums [2]TracePart
	var periods [2]int
	var cyc, ns float64
	for k, rs := range runs {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Tile < rs[j].Tile })
		for i, r := range rs {
			if i > 0 && r.Tile == rs[i-1].Tile+1 {
				sums[k.c].Period += float64(r.StartClock - rs[i-1].StartClock) // wraps correctly in uint32
				periods[k.c]++
			}
			if r.Tile == 0 {
				f := &s.First
				f.Tiles++
				f.Order += float64(r.Order)
				f.Mainloop += float64(r.Mainloop)
				f.OperandWait += float64(r.OperandWait)
				f.Epilogue += float64(r.Epilogue)
				f.DeWait += float64(r.DeWait)
				f.MmaWait += float64(r.MmaWait)
				f.Issue += float64(r.Issue)
				f.Drain += float64(r.Drain)
				s.FirstLongest = math.Max(s.FirstLongest, float64(r.Order)+float64(r.Mainloop)+float64(r.Epilogue))
				continue
			}
			p := &sums[k.c]
			p.Tiles++
			p.Order += float64(r.Order)
			p.Mainloop += float64(r.Mainloop)
			p.OperandWait += float64(r.OperandWait)
			p.Epilogue += float64(r.Epilogue)
			p.DeWait += float64(r.DeWait)
			p.MmaWait += float64(r.MmaWait)
			p.Issue += float64(r.Issue)
			p.Drain += float64(r.Drain)
		}
		if n := len(rs); n > 1 && rs[n-1].StartNs > rs[0].StartNs {
			// %clock is 32 bits: sum the per-tile deltas, each < 2^32.
			var d uint64
			for i := 1; i < n; i++ {
				d += uint64(rs[i].StartClock - rs[i-1].StartClock)
			}
			cyc += float64(d)
			ns += float64(rs[n-1].StartNs - rs[0].StartNs)
		}
	}
	s.First = s.First.mean()
	for c := range sums {
		p := sums[c].mean()
		if periods[c] > 0 {
			p.Period /= float64(periods[c])
		}
		s.Consumers[c] = p
	}
	if ns > 0 {
		s.ClockGHz = cyc / ns
	}
	ctas := map[int][]TraceRecord{}
	for _, r := range recs {
		ctas[r.CTA] = append(ctas[r.CTA], r)
	}
	s.TilesMin, s.TilesMax, s.TailIdlePct = tail(ctas, s.ClockGHz)
	return s
}

// tail is the fewest and most tiles of one run (a CTA's records) and their mean
// idle time at the end as a percentage of the span from the first tile's
// start to the last tile's end (a tile ends its order wait, mainloop and
// epilogue after its start).
func tail(runs map[int][]TraceRecord, ghz float64) (lo, hi int, idlePct float64) {
	if len(runs) == 0 || ghz == 0 {
		return 0, 0, 0
	}
	first, last := math.Inf(1), math.Inf(-1)
	ends := make([]float64, 0, len(runs))
	lo = math.MaxInt
	for _, rs := range runs {
		lo, hi = min(lo, len(rs)), max(hi, len(rs))
		var end float64
		for _, r := range rs {
			first = math.Min(first, float64(r.StartNs))
			end = math.Max(end, float64(r.StartNs)+float64(r.Order+r.Mainloop+r.Epilogue)/ghz)
		}
		ends = append(ends, end)
		last = math.Max(last, end)
	}
	if last <= first {
		return lo, hi, 0
	}
	var idle float64
	for _, e := range ends {
		idle += last - e
	}
	return lo, hi, 100 * idle / float64(len(ends)) / (last - first)
}

// Print writes the summary as a small table in microseconds (cycles at the
// measured clock).
func (s TraceSummary) Print(w io.Writer) {
	us := func(c float64) float64 {
		if s.ClockGHz == 0 {
			return 0
		}
		return c / s.ClockGHz / 1e3
	}
	fmt.Fprintf(w, "trace: %d tile records, SM clock %.2f GHz; per tile after the first, mean us:\n", s.Records, s.ClockGHz)
	fmt.Fprintf(w, "%-9s %6s %8s %7s %9s %9s %9s %8s %9s %7s %7s\n", "consumer", "tiles", "period", "order", "mainloop", "op-wait", "epilogue", "de-wait", "mma-wait", "issue", "drain")
	for c, p := range s.Consumers {
		fmt.Fprintf(w, "%-9d %6d %8.2f %7.2f %9.2f %9.2f %9.2f %8.2f %9.2f %7.2f %7.2f\n", c, p.Tiles, us(p.Period), us(p.Order), us(p.Mainloop),
			us(p.OperandWait), us(p.Epilogue), us(p.DeWait), us(p.MmaWait), us(p.Issue), us(p.Drain))
	}
	fmt.Fprintf(w, "tail: %d-%d tiles per CTA; SMs idle at the end while the last CTA finishes: %.1f%% of the span on average\n",
		s.TilesMin, s.TilesMax, s.TailIdlePct)
	if f := s.First; f.Tiles > 0 {
		// With one tile a consumer there is no clock estimate: cycles.
		unit, conv := "us", us
		if s.ClockGHz == 0 {
			unit, conv = "kcycles", func(c float64) float64 { return c / 1e3 }
		}
		fmt.Fprintf(w, "first tiles (%d, both consumers; a stream-K owner's epilogue holds its fixup), mean %s: order %.2f, mainloop %.2f (op-wait %.2f, mma-wait %.2f), drain %.2f, epilogue %.2f; longest order+mainloop+epilogue %.2f\n",
			f.Tiles, unit, conv(f.Order), conv(f.Mainloop), conv(f.OperandWait), conv(f.MmaWait), conv(f.Drain), conv(f.Epilogue), conv(s.FirstLongest))
	}
}
