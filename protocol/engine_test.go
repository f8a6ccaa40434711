package protocol

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checks lists the checks of vs, in order.
func checks(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Check)
	}
	return out
}

// TestProtocolWaitParity pins the mbarrier.try_wait.parity semantics the
// model steps: a wait passes once the barrier's phase parity differs from
// the one passed, and the model flags a pass on any phase but the one the
// role means (a parity two phases off aliases) and a wait whose phase has
// been overtaken.
func TestProtocolWaitParity(t *testing.T) {
	tests := []struct {
		name            string
		completed, want int
		parity          int
		passes          bool
		checks          []string
	}{
		{"phase pending", 0, 1, 0, false, nil},
		{"phase done", 1, 1, 0, true, nil},
		{"the phase before, done at start", 0, 0, 1, true, nil},
		{"wrong parity passes early", 0, 1, 1, true, []string{CheckParity}},
		{"two phases ahead aliases", 1, 3, 0, true, []string{CheckParity}},
		{"overtaken by one: blocks", 2, 1, 0, false, []string{CheckParity}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(Policy{}, 1)
			b := s.addBar("b", 1, 0)
			s.bars[b].completed = tt.completed
			s.addRole(0, "r", []op{{kind: opWait, bar: b, want: tt.want, parity: tt.parity}})
			r := s.roles[0]
			if got := s.enabled(r); got != tt.passes {
				t.Errorf("enabled = %t, want %t", got, tt.passes)
			}
			if tt.passes {
				s.step(r)
			}
			if diff := cmp.Diff(tt.checks, checks(s.viol)); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProtocolTx pins the tx accounting: bytes may land before the
// expect-tx (the count goes negative, as PTX allows), a phase completes
// when arrivals and bytes are both done, and bytes for the wrong phase or
// a phase short of its buffer are flagged.
func TestProtocolTx(t *testing.T) {
	tests := []struct {
		name      string
		expect    int
		land      []int
		completed int
		checks    []string
	}{
		{"expect then land", 100, []int{60, 40}, 1, nil},
		{"too few bytes: pending", 100, []int{60}, 0, nil},
		{"landed short of the buffer", 60, []int{60}, 1, []string{CheckTx}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(Policy{}, 1)
			b := s.addBar("full", 1, 100)
			s.addRole(0, "producer", []op{{kind: opExpectTx, bar: b, n: tt.expect}})
			for _, n := range tt.land {
				s.land(b, n, 0, "tma")
			}
			s.step(s.roles[0])
			if got := s.bars[b].completed; got != tt.completed {
				t.Errorf("completed = %d, want %d", got, tt.completed)
			}
			if diff := cmp.Diff(tt.checks, checks(s.viol)); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("bytes for the next phase", func(t *testing.T) {
		s := newSim(Policy{}, 1)
		b := s.addBar("full", 1, 100)
		s.land(b, 100, 1, "tma")
		if diff := cmp.Diff([]string{CheckTx}, checks(s.viol)); diff != "" {
			t.Errorf("checks (-want +got):\n%s", diff)
		}
	})
}

// TestProtocolArrivals pins the arrival checks: the init count completes a
// phase; an arrival meant for another phase, or more arrivals than the
// init count, is flagged; a phase left part-arrived fails the final check.
func TestProtocolArrivals(t *testing.T) {
	tests := []struct {
		name   string
		init   int
		tags   []int
		checks []string
	}{
		{"two phases", 2, []int{0, 0, 1, 1}, nil},
		{"init too low: spills into the next phase", 1, []int{0, 0}, []string{CheckArrivals}},
		{"meant for the next phase", 2, []int{0, 1}, []string{CheckArrivals}},
		// The open phase, and its tally short of the init count.
		{"left incomplete", 3, []int{0, 0}, []string{CheckArrivals, CheckArrivals}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(Policy{}, 1)
			b := s.addBar("empty", tt.init, 0)
			for _, tag := range tt.tags {
				s.arrive(b, 1, tag, "consumer")
			}
			if len(s.viol) == 0 {
				s.finalChecks()
			}
			if diff := cmp.Diff(tt.checks, checks(s.viol)); diff != "" {
				t.Errorf("checks (-want +got):\n%s\n%v", diff, s.viol)
			}
		})
	}
}

// TestProtocolBuffers pins the ownership checks: a generation is
// overwritten only once its readers have read and released it, and read
// only once it is fully written.
func TestProtocolBuffers(t *testing.T) {
	type step struct {
		write   bool // writeBegin+writeEnd of gen (else acquire gen)
		gen     int
		release bool // release after acquiring
	}
	tests := []struct {
		name   string
		size   int
		steps  []step
		checks []string
	}{
		{"write, read, release, write", 0, []step{{true, 0, false}, {false, 0, true}, {true, 1, false}}, nil},
		{"overwritten while read", 0, []step{{true, 0, false}, {false, 0, false}, {true, 1, false}}, []string{CheckOverwrite}},
		{"overwritten before read", 0, []step{{true, 0, false}, {true, 1, false}}, []string{CheckOverwrite}},
		{"read before written", 0, []step{{false, 0, true}}, []string{CheckRead}},
		{"read short of its bytes", 64, []step{{true, 0, false}, {false, 0, true}}, []string{CheckRead}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(Policy{}, 1)
			b := s.addBuf("stage", tt.size, 1)
			for _, st := range tt.steps {
				if st.write {
					s.writeBegin(b, st.gen, "tma")
					s.writeEnd(b, 0)
					continue
				}
				s.acquire(b, st.gen, holdRead, "consumer")
				if st.release {
					delete(s.bufs[b].holders, "consumer")
				}
			}
			if diff := cmp.Diff(tt.checks, checks(s.viol)); diff != "" {
				t.Errorf("checks (-want +got):\n%s\n%v", diff, s.viol)
			}
		})
	}
}

// TestProtocolRaster checks that both tile orders visit every tile once.
func TestProtocolRaster(t *testing.T) {
	for _, tt := range []struct {
		raster         string
		tilesM, tilesN int
		group          int
	}{{"m", 5, 3, 2}, {"n", 5, 3, 2}, {"m", 1, 7, 4}, {"n", 7, 1, 4}, {"n", 4, 4, 1}} {
		seen := map[[2]int]int{}
		for id := 0; id < tt.tilesM*tt.tilesN; id++ {
			tm, tn := rasterTile(tt.raster, id, tt.tilesM, tt.tilesN, tt.group)
			seen[[2]int{tm, tn}]++
		}
		for tm := 0; tm < tt.tilesM; tm++ {
			for tn := 0; tn < tt.tilesN; tn++ {
				if seen[[2]int{tm, tn}] != 1 {
					t.Errorf("raster %s %dx%d group %d: tile (%d,%d) visited %d times", tt.raster, tt.tilesM, tt.tilesN, tt.group, tm, tn, seen[[2]int{tm, tn}])
				}
			}
		}
	}
}

// TestProtocolSpecValidate checks that a spec the model cannot run is
// refused before it runs.
func TestProtocolSpecValidate(t *testing.T) {
	base := Spec{Name: "x", Arch: SM90a, TileM: 128, TileN: 128, TileK: 64, SubM: 64, SubN: 64, SwizzleGroup: 1, ClusterM: 1, ClusterN: 1,
		Ring: Ring{Stages: 2, FullParity: Parity{Div: 2}, EmptyParity: Parity{Div: 2, Xor: 1}},
		Epi:  Epi{Stages: 2},
		SM90: &SM90{Schedule: PingPong, TileStep: 2, MB: 2, NB: 2, Threads: 384, OrderParity: Parity{Div: 1}}}
	if err := base.Validate(); err != nil {
		t.Fatalf("base spec: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(*Spec)
	}{
		{"no stages", func(s *Spec) { s.Ring.Stages = 0 }},
		{"parity divisor 0", func(s *Spec) { s.Ring.FullParity.Div = 0 }},
		{"both arch sections", func(s *Spec) { s.SM100 = &SM100{} }},
		{"unknown schedule", func(s *Spec) { s.SM90.Schedule = "1cta" }},
	}
	for _, tt := range tests {
		s := base.Clone()
		tt.mutate(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", tt.name)
		}
	}
}

// TestProtocolDeadlockOutcome pins what a deadlock is reported to do on
// the GPU, by the operation that blocks.
func TestProtocolDeadlockOutcome(t *testing.T) {
	tests := []struct {
		name    string
		op      op
		outcome string
	}{
		{"trapping wait", op{kind: opWait, want: 1, wk: waitTrap}, OutcomeTrap},
		{"consumer wait gives up", op{kind: opWait, want: 1, wk: waitNT}, OutcomeWrong},
		{"setmaxnreg.inc", op{kind: opRegInc, n: 8}, OutcomeHang},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(Policy{}, 1)
			tt.op.bar = s.addBar("never", 1, 0)
			s.addRole(0, "r", []op{tt.op})
			s.run(stepLimit)
			want := []Violation{{Check: CheckDeadlock, Where: "cluster", Outcome: tt.outcome}}
			if diff := cmp.Diff(want, s.viol, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Detail" }, cmp.Ignore())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestProtocolLastReader pins holdLast: a generation read by fewer of its
// readers than the buffer counts is overwritten too early, unless the
// read is the generation's last (holdLast: the readers after it skip it).
func TestProtocolLastReader(t *testing.T) {
	tests := []struct {
		name   string
		mode   holdMode
		checks []string
	}{
		{"one of two readers, then a write", holdRead, []string{CheckOverwrite}},
		{"the last reader, then a write", holdLast, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(Policy{}, 1)
			b := s.addBuf("slot", 0, 2)
			s.addRole(0, "r", []op{
				{kind: opWrite, buf: b, tag: 0},
				{kind: opAcquire, bufs: []int{b}, tag: 0, mode: tt.mode},
				{kind: opRelease, buf: b},
				{kind: opWrite, buf: b, tag: 1},
			})
			for range 4 {
				s.step(s.roles[0])
			}
			if diff := cmp.Diff(tt.checks, checks(s.viol)); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
		})
	}
}
