package protocol

import (
	"fmt"
	"math/rand"
	"slices"
)

// The stream-K handshake between CTAs (templates/cuda/
// sched_streamk_sm90a.sched.tmpl, sw_sk_fixup), modelled over a whole grid:
// the mbarrier model above covers one CTA's (or cluster's) roles, this one
// the global-memory flags that let the owner of a split tile add the other
// CTAs' partial sums. Each consumer part of each CTA walks its work list
// (tiling.StreamKPlan, given as SKLaunch.Items; this package imports no
// swigen package):
//
//   - a partial item: every thread stores its accumulators in the CTA's
//     slot (write), the part's named barrier, then one thread's release
//     store of flag[cta][part] = 1;
//   - an owner item: for each lower CTA from the one holding the tile's
//     first k-block, in CTA order: one thread waits until flag == 1
//     (acquire) and puts it back to 0, the named barrier, every thread
//     loads and adds the partial (read); then the epilogue;
//   - a whole item: the epilogue.
//
// Checks: a partial is read only once visible (the owner acquired a
// flag whose release came after the partial's write, in this launch); an
// epilogue sees exactly the tile's k-blocks, its partials added in CTA
// order (bitwise-deterministic output); no role waits forever, with every
// CTA resident or only Resident at a time, launched in CTA order; the
// flags are zero when a launch ends (the next launch on the workspace
// needs them so). Launches runs back to back on one workspace.

// SKRole is what a stream-K work item does with its accumulator.
type SKRole int

// The roles (tiling.StreamKRole).
const (
	SKWhole SKRole = iota
	SKPartial
	SKOwner
)

// SKItem is one item of a CTA's work list: k-blocks [KB0, KB1) of Tile.
type SKItem struct {
	Tile, KB0, KB1 int
	Role           SKRole
}

// SKBugs seeds the bugs the model must catch, each a change to
// sw_sk_fixup.
type SKBugs struct {
	NoRelease          bool // a partial never sets its flag
	ReleaseBeforeWrite bool // the flag is set before the partial is stored
	OwnerNoWait        bool // the owner reads the partials without waiting
	NoReset            bool // the owner leaves the flags it consumed at 1
	ArrivalOrder       bool // the owner adds partials as their flags come, not in CTA order
}

// SKLaunch is one stream-K launch to model.
type SKLaunch struct {
	KBlocks int
	// Items are each CTA's work list, in order.
	Items [][]SKItem
	// PingPong: consumer c runs items j%2 == c on the whole tile (part 0);
	// otherwise both consumers run every item, consumer c on part c.
	PingPong bool
	// Resident is how many CTAs run at once (0: all), started in CTA order.
	Resident int
	Launches int // back to back on one workspace (0: 1)
	Bugs     SKBugs
}

type skOpKind int

const (
	skWrite skOpKind = iota
	skRelease
	skWait
	skReset
	skRead
	skEpilogue
)

type skOp struct {
	kind       skOpKind
	cta, part  int // the flag or slot
	tile       int
	kb0, kb1   int // skRead, skEpilogue: the k-blocks the slot or the accumulator holds
	candidates []int
}

// skRole is one consumer part's program and state.
type skRole struct {
	cta, part int
	ops       []skOp
	pc        int
	visible   map[[2]int]int // slot -> launch whose write this role may read
	acc       map[int][]int  // tile -> k-block ranges' starts, in the order added
	kbs       map[int]int    // tile -> k-blocks accumulated
}

type skSim struct {
	l        SKLaunch
	rng      *rand.Rand
	launch   int
	flags    map[[2]int]int
	written  map[[2]int]int // slot -> launch of its last complete write
	released map[[2]int]int // flag -> launch of the write its release published (-1: none)
	slotData map[[2]int]skSlot
	errs     []Violation
}

// RunStreamK models l under a random schedule from seed and returns the
// violations found.
func RunStreamK(l SKLaunch, seed int64) []Violation {
	s := &skSim{l: l, rng: rand.New(rand.NewSource(seed)), flags: map[[2]int]int{}, written: map[[2]int]int{}, released: map[[2]int]int{}}
	for s.launch = 1; s.launch <= max(1, l.Launches) && len(s.errs) == 0; s.launch++ {
		s.runLaunch()
	}
	return s.errs
}

func (s *skSim) fail(check, where, format string, args ...any) {
	s.errs = append(s.errs, Violation{Check: check, Where: where, Detail: fmt.Sprintf(format, args...)})
}

// runLaunch starts the CTAs in order, at most Resident at once, and steps
// a random enabled role until every role is done or none can move.
func (s *skSim) runLaunch() {
	var roles []*skRole
	for b := range s.l.Items {
		for c := 0; c < 2; c++ {
			roles = append(roles, s.program(b, c))
		}
	}
	started := func() int { // CTAs started: all below the first unfinished one + Resident
		res := s.l.Resident
		if res <= 0 {
			return len(s.l.Items)
		}
		first := len(s.l.Items)
		for _, r := range roles {
			if r.pc < len(r.ops) {
				first = min(first, r.cta)
			}
		}
		return min(len(s.l.Items), first+res)
	}
	for len(s.errs) == 0 {
		n := started()
		var ready []*skRole
		done := true
		for _, r := range roles {
			if r.pc < len(r.ops) {
				done = false
				if r.cta < n && s.enabled(r) {
					ready = append(ready, r)
				}
			}
		}
		if done {
			break
		}
		if len(ready) == 0 {
			s.deadlock(roles)
			return
		}
		s.step(ready[s.rng.Intn(len(ready))])
	}
	for f, v := range s.flags {
		if v != 0 && len(s.errs) == 0 {
			s.fail("flags", fmt.Sprintf("launch %d", s.launch), "flag of CTA %d part %d is %d when the launch ends: the next launch's owner would pass its wait before the partial is stored", f[0], f[1], v)
		}
	}
}

func (s *skSim) deadlock(roles []*skRole) {
	for _, r := range roles {
		if r.pc < len(r.ops) {
			o := r.ops[r.pc]
			s.fail("deadlock", fmt.Sprintf("launch %d cta%d/part%d", s.launch, r.cta, r.part),
				"waits forever on the flag of CTA %d part %d (tile %d); on the GPU the consumer's wait gives up at the hang deadline and the tile is wrong", o.cta, o.part, o.tile)
			return
		}
	}
}

// enabled: a wait needs its flag set (ArrivalOrder: any candidate's).
func (s *skSim) enabled(r *skRole) bool {
	o := r.ops[r.pc]
	if o.kind != skWait {
		return true
	}
	if o.candidates != nil {
		return slices.ContainsFunc(o.candidates, func(b int) bool { return s.flags[[2]int{b, o.part}] == 1 })
	}
	return s.flags[[2]int{o.cta, o.part}] == 1
}

// skSlot is a slot's content: the launch that stored it and the k-blocks.
type skSlot struct{ launch, tile, kb0, kb1 int }

// program transcribes sw_sk_fixup for consumer c of CTA b (with l.Bugs).
func (s *skSim) program(b, c int) *skRole {
	r := &skRole{cta: b, part: c, visible: map[[2]int]int{}, acc: map[int][]int{}, kbs: map[int]int{}}
	if s.l.PingPong {
		r.part = 0
	}
	for j, it := range s.l.Items[b] {
		if s.l.PingPong && j%2 != c {
			continue
		}
		switch it.Role {
		case SKPartial:
			r.ops = append(r.ops, s.partialOps(b, r.part, it)...)
		case SKOwner:
			r.ops = append(r.ops, s.ownerOps(b, r.part, it)...)
		default:
			r.ops = append(r.ops, skOp{kind: skEpilogue, tile: it.Tile, kb0: it.KB0, kb1: it.KB1})
		}
	}
	return r
}

func (s *skSim) partialOps(b, part int, it SKItem) []skOp {
	w := skOp{kind: skWrite, cta: b, part: part, tile: it.Tile, kb0: it.KB0, kb1: it.KB1}
	rel := skOp{kind: skRelease, cta: b, part: part, tile: it.Tile}
	switch {
	case s.l.Bugs.NoRelease:
		return []skOp{w}
	case s.l.Bugs.ReleaseBeforeWrite:
		return []skOp{rel, w}
	}
	return []skOp{w, rel}
}

// ownerOps: the owner's own k-blocks, then each lower CTA's partial from
// the CTA holding the tile's first k-block (sw_sk_cta_of), then the
// epilogue.
func (s *skSim) ownerOps(b, part int, it SKItem) []skOp {
	first := s.holder(it.Tile)
	var ops []skOp
	var cands []int
	for p := first; p < b; p++ {
		cands = append(cands, p)
	}
	for _, p := range cands {
		wait := skOp{kind: skWait, cta: p, part: part, tile: it.Tile}
		if s.l.Bugs.ArrivalOrder {
			wait.candidates = cands
		}
		if !s.l.Bugs.OwnerNoWait {
			ops = append(ops, wait)
		}
		if !s.l.Bugs.NoReset {
			ops = append(ops, skOp{kind: skReset, cta: p, part: part, tile: it.Tile})
		}
		ops = append(ops, skOp{kind: skRead, cta: p, part: part, tile: it.Tile})
	}
	return append(ops, skOp{kind: skEpilogue, tile: it.Tile, kb0: it.KB0, kb1: it.KB1, cta: b})
}

// holder is the CTA whose list holds k-block 0 of tile.
func (s *skSim) holder(tile int) int {
	for b, items := range s.l.Items {
		for _, it := range items {
			if it.Tile == tile && it.KB0 == 0 {
				return b
			}
		}
	}
	return -1
}

// step runs r's next operation.
func (s *skSim) step(r *skRole) {
	o := &r.ops[r.pc]
	r.pc++
	where := fmt.Sprintf("launch %d cta%d/part%d tile %d", s.launch, r.cta, r.part, o.tile)
	slot := [2]int{o.cta, o.part}
	switch o.kind {
	case skWrite:
		s.written[slot] = s.launch
		s.slots()[slot] = skSlot{s.launch, o.tile, o.kb0, o.kb1}
	case skRelease:
		s.released[slot] = -1
		if s.written[slot] == s.launch {
			s.released[slot] = s.launch
		}
		s.flags[slot] = 1
	case skWait:
		if o.candidates != nil {
			s.pickArrived(r, o)
			slot = [2]int{o.cta, o.part}
		}
		r.visible[slot] = s.released[slot]
	case skReset:
		s.flags[slot] = 0
	case skRead:
		s.read(r, o, slot, where)
	case skEpilogue:
		s.epilogue(r, o, where)
	}
}

// pickArrived (the ArrivalOrder bug) takes any contributor whose flag is
// set and points the wait's reset and read at it.
func (s *skSim) pickArrived(r *skRole, o *skOp) {
	var ready []int
	for _, b := range o.candidates {
		if s.flags[[2]int{b, o.part}] == 1 && !slices.Contains(r.acc[-1-o.tile], b) {
			ready = append(ready, b)
		}
	}
	b := ready[s.rng.Intn(len(ready))]
	r.acc[-1-o.tile] = append(r.acc[-1-o.tile], b)
	o.cta = b
	for i := r.pc; i < len(r.ops) && i < r.pc+2; i++ {
		if r.ops[i].kind == skReset || r.ops[i].kind == skRead {
			r.ops[i].cta = b
		}
	}
}

func (s *skSim) read(r *skRole, o *skOp, slot [2]int, where string) {
	sl := s.slots()[slot]
	switch {
	case r.visible[slot] != s.launch:
		s.fail("visibility", where, "reads the partial of CTA %d part %d without having acquired a flag released after it was stored in this launch", o.cta, o.part)
		return
	case sl.launch != s.launch || sl.tile != o.tile:
		s.fail("visibility", where, "reads the slot of CTA %d part %d, which holds tile %d of launch %d", o.cta, o.part, sl.tile, sl.launch)
		return
	}
	r.acc[o.tile] = append(r.acc[o.tile], o.cta)
	r.kbs[o.tile] += sl.kb1 - sl.kb0
}

// epilogue checks the accumulator is the whole tile, summed in CTA order.
func (s *skSim) epilogue(r *skRole, o *skOp, where string) {
	got := r.kbs[o.tile] + o.kb1 - o.kb0
	if got != s.l.KBlocks {
		s.fail("sum", where, "the epilogue runs on %d of %d k-blocks", got, s.l.KBlocks)
	}
	if !slices.IsSorted(r.acc[o.tile]) {
		s.fail("order", where, "partials added in CTA order %v: not the fixed order, so the output's rounding depends on timing", r.acc[o.tile])
	}
}

// slots is the slot contents, kept beside written.
func (s *skSim) slots() map[[2]int]skSlot {
	if s.slotData == nil {
		s.slotData = map[[2]int]skSlot{}
	}
	return s.slotData
}

// SKWork is an item of a CTA's stream-K work list with Before, the
// k-blocks of the CTA's items before it (its operand-ring position).
type SKWork struct {
	SKItem
	Before int
}

// StreamKItems is CTA cta's stream-K work list for tiles tiles of kblocks
// k-blocks on grid CTAs, splitting into ranges of at least minKBlocks:
// tiling.StreamKPlan.Work, restated here (this package imports no swigen
// package; a test holds the two equal), for the barrier model's roles.
func StreamKItems(tiles, kblocks, grid, cta, minKBlocks int) []SKWork {
	full := tiles / grid
	units := (tiles - full*grid) * kblocks
	ctas := min(grid, max(1, units/minKBlocks))
	var out []SKWork
	for j := 0; j < full; j++ {
		out = append(out, SKWork{SKItem{Tile: cta + j*grid, KB0: 0, KB1: kblocks, Role: SKWhole}, j * kblocks})
	}
	if cta >= ctas || units == 0 {
		return out
	}
	u0, u1 := cta*units/ctas, (cta+1)*units/ctas
	for st := (u1 - 1) / kblocks; st >= u0/kblocks; st-- {
		lo, hi := max(u0, st*kblocks), min(u1, (st+1)*kblocks)
		w := SKWork{SKItem{Tile: full*grid + st, KB0: lo - st*kblocks, KB1: hi - st*kblocks}, full*kblocks + u1 - hi}
		switch {
		case w.KB1 < kblocks:
			w.Role = SKPartial
		case w.KB0 > 0:
			w.Role = SKOwner
		}
		out = append(out, w)
	}
	return out
}
