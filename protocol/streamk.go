package protocol

import (
	"fmt"
	"math/rand"
	"slices"
)

// The stream-K handshake between CTAs (templates/cuda/
// sched_streamk_sm90a.sched.tmpl, sw_sk_fixup and sw_sk_finish), modelled
// over a whole grid: the mbarrier model above covers one CTA's (or
// cluster's) roles, this one the global-memory flags that let the owner of
// a split tile add the other CTAs' partial sums. Each consumer part of each
// CTA walks its work list (tiling.StreamKPlan, given as SKLaunch.Items;
// this package imports no swigen package):
//
//   - a partial item: every thread stores its accumulators in the CTA's
//     slot (write), the part's named barrier, then one thread's release
//     store of flag[cta][part] = the launch's epoch (the workspace header's
//     last epoch plus one);
//   - an owner item: one thread waits, for each lower CTA from the one
//     holding the tile's first k-block, until its flag holds the launch's
//     epoch (acquire: in the template, relaxed looks at up to four flags
//     at once, an acquire wait for any not yet at the epoch, then one
//     acquire fence after all of them, which makes every look an acquire
//     pattern; the same order as an acquire per flag, every one before
//     the barrier); the named barrier; every thread loads and adds the
//     partials in CTA order (read); then the epilogue;
//   - a whole item: the epilogue;
//   - after its last item, each consumer counts itself done on the header;
//     the last of the grid records the launch's epoch there (at the last
//     epoch, MaxEpoch, the epochs wrap: it zeroes the flags and the
//     header).
//
// Checks: a partial is read only once visible (the owner acquired a flag
// whose release came after the partial's write, in this launch); an
// epilogue sees exactly the tile's k-blocks, its partials added in CTA
// order (bitwise-deterministic output); no role waits forever, with every
// CTA resident or only Resident at a time, launched in CTA order; when a
// launch ends no flag holds the next launch's epoch or a later one (it
// would pass that launch's wait before the partial is stored). Launches
// run back to back on one workspace; Late stalls a CTA past its owners'
// hang timeout, as a debugger or heavy time-slicing can.

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
// sw_sk_fixup or sw_sk_finish.
type SKBugs struct {
	NoRelease          bool // a partial never sets its flag
	ReleaseBeforeWrite bool // the flag is set before the partial is stored
	OwnerNoWait        bool // the owner reads the partials without waiting
	ArrivalOrder       bool // the owner adds partials as their flags come, not in CTA order
	WaitNonzero        bool // the owner waits for a nonzero flag, not its launch's epoch
	NoAdvance          bool // the header's epoch is never advanced: every launch is epoch 1
	AdvanceFirst       bool // the first consumer done advances the epoch, not the last
	NoWrapZero         bool // the epochs wrap without zeroing the flags
}

// SKLate is a CTA whose consumers stall in one launch (1-based) until
// every other role is done or waits on it: the owners that wait for its
// flags give up, as the kernel's wait does at the hang timeout (that
// launch's output is wrong, and the model does not check it), and then it
// runs, releasing its flags after them.
type SKLate struct{ Launch, CTA int }

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
	// MaxEpoch is the last epoch before the epochs wrap (0: 2^32-1,
	// tiling.StreamKMaxEpoch); a small one wraps within a few launches.
	MaxEpoch int
	Late     *SKLate
	// ResetFlags models the handshake the epochs replaced: a partial sets
	// its flag to 1 and the owner puts it back to 0 after its wait. Late
	// defeats it: the late release, after the owner's reset, leaves the flag
	// set for the next launch's owner.
	ResetFlags bool
	Bugs       SKBugs
}

type skOpKind int

const (
	skWrite skOpKind = iota
	skRelease
	skWait
	skReset
	skRead
	skEpilogue
	skFinish
)

type skOp struct {
	kind       skOpKind
	cta, part  int // the flag or slot
	tile       int
	kb0, kb1   int // skRead, skEpilogue: the k-blocks the slot or the accumulator holds
	candidates []int
	readAt     int // skWait: how many ops after it its read comes
}

// skRole is one consumer part's program and state.
type skRole struct {
	cta, part int
	ops       []skOp
	pc        int
	hung      bool           // a wait gave up: this launch's results are wrong
	visible   map[[2]int]int // slot -> launch whose write this role may read
	acc       map[int][]int  // tile -> k-block ranges' starts, in the order added
	kbs       map[int]int    // tile -> k-blocks accumulated
}

type skSim struct {
	l        SKLaunch
	rng      *rand.Rand
	launch   int
	flags    map[[2]int]int
	header   int            // the last finished launch's epoch (0: none, or wrapped)
	done     int            // consumers done with the running launch
	written  map[[2]int]int // slot -> launch of its last complete write
	released map[[2]int]int // flag -> launch of the write its release published (-1: none)
	slotData map[[2]int]skSlot
	errs     []Violation
}

// RunStreamK models l under a random schedule from seed and returns the
// violations found.
func RunStreamK(l SKLaunch, seed int64) []Violation {
	s := &skSim{l: l, rng: rand.New(rand.NewSource(seed)), flags: map[[2]int]int{}, written: map[[2]int]int{},
		released: map[[2]int]int{}, slotData: map[[2]int]skSlot{}}
	for s.launch = 1; s.launch <= max(1, l.Launches) && len(s.errs) == 0; s.launch++ {
		s.runLaunch()
	}
	return s.errs
}

func (s *skSim) fail(check, where, format string, args ...any) {
	s.errs = append(s.errs, Violation{Check: check, Where: where, Detail: fmt.Sprintf(format, args...)})
}

// maxEpoch is the last epoch before a wrap.
func (s *skSim) maxEpoch() int {
	if s.l.MaxEpoch > 0 {
		return s.l.MaxEpoch
	}
	return 1<<32 - 1
}

// epoch is the value a release stores and a wait looks for, read from the
// header when the role runs it (sw_sk_epoch).
func (s *skSim) epoch() int {
	if s.l.ResetFlags {
		return 1
	}
	return s.header + 1
}

// late reports whether r is stalled by l.Late in this launch.
func (s *skSim) late(r *skRole) bool {
	return s.l.Late != nil && s.l.Late.Launch == s.launch && r.cta == s.l.Late.CTA
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
	lateHeld := s.l.Late != nil && s.l.Late.Launch == s.launch
	for len(s.errs) == 0 {
		ready, done := s.ready(roles, lateHeld)
		if done {
			break
		}
		if len(ready) == 0 && lateHeld {
			// Every other role is done or waits: the waits give up at the
			// hang timeout, then the late CTA runs.
			if !s.timeOut(roles) {
				lateHeld = false
			}
			continue
		}
		if len(ready) == 0 {
			s.deadlock(roles)
			return
		}
		s.step(ready[s.rng.Intn(len(ready))])
	}
	s.checkFlags()
}

// ready is the roles that can move now (the late CTA's only once released)
// and whether every role is done.
func (s *skSim) ready(roles []*skRole, lateHeld bool) ([]*skRole, bool) {
	n := len(s.l.Items) // CTAs started: all below the first unfinished one + Resident
	if res := s.l.Resident; res > 0 {
		first := len(s.l.Items)
		for _, r := range roles {
			if r.pc < len(r.ops) {
				first = min(first, r.cta)
			}
		}
		n = min(len(s.l.Items), first+res)
	}
	var ready []*skRole
	done := true
	for _, r := range roles {
		if r.pc < len(r.ops) {
			done = false
			if r.cta < n && s.enabled(r) && !(lateHeld && s.late(r)) {
				ready = append(ready, r)
			}
		}
	}
	return ready, done
}

// timeOut passes every blocked wait as the kernel's does at the hang
// deadline, marking its role hung; false when no role was waiting.
func (s *skSim) timeOut(roles []*skRole) bool {
	gaveUp := false
	for _, r := range roles {
		if r.pc < len(r.ops) && r.ops[r.pc].kind == skWait && !s.late(r) {
			r.hung = true
			r.pc++
			if s.l.ResetFlags && r.pc < len(r.ops) && r.ops[r.pc].kind == skReset {
				s.step(r) // the template reset the flag after a wait that gave up too
			}
			gaveUp = true
		}
	}
	return gaveUp
}

// checkFlags: when a launch ends, no flag may hold the next launch's epoch
// or a later one of the cycle. ResetFlags is not checked here: a flag it
// leaves set shows as the next launch's early read (visibility).
func (s *skSim) checkFlags() {
	if len(s.errs) > 0 || s.l.ResetFlags {
		return
	}
	for f, v := range s.flags {
		if v > s.header {
			s.fail("flags", fmt.Sprintf("launch %d", s.launch), "flag of CTA %d part %d is %d when the launch ends, the next launch's epoch being %d: a later launch's owner would pass its wait before the partial is stored", f[0], f[1], v, s.header+1)
			return
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

// enabled: a wait needs its flag to hold the epoch (WaitNonzero: any
// nonzero value; ArrivalOrder: any candidate's).
func (s *skSim) enabled(r *skRole) bool {
	o := r.ops[r.pc]
	if o.kind != skWait || r.hung {
		return true
	}
	set := func(b int) bool {
		v := s.flags[[2]int{b, o.part}]
		if s.l.Bugs.WaitNonzero {
			return v != 0
		}
		return v == s.epoch()
	}
	if o.candidates != nil { // a contributor not yet picked
		return slices.ContainsFunc(o.candidates, func(b int) bool { return set(b) && !slices.Contains(r.acc[-1-o.tile], b) })
	}
	return set(o.cta)
}

// skSlot is a slot's content: the launch that stored it and the k-blocks.
type skSlot struct{ launch, tile, kb0, kb1 int }

// program transcribes sw_sk_fixup for consumer c of CTA b (with l.Bugs),
// then sw_sk_finish.
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
	if !s.l.ResetFlags {
		r.ops = append(r.ops, skOp{kind: skFinish, cta: b, part: r.part})
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

// ownerOps: the owner's own k-blocks, then one thread's wait for each
// lower CTA's flag from the CTA holding the tile's first k-block
// (sw_sk_cta_of), then every thread's read of their partials in CTA order,
// then the epilogue. ResetFlags: each wait is followed by its reset, and
// the reads come after every wait as well.
func (s *skSim) ownerOps(b, part int, it SKItem) []skOp {
	first := s.holder(it.Tile)
	var ops, reads []skOp
	var cands []int
	for p := first; p < b; p++ {
		cands = append(cands, p)
	}
	var waits []int
	for _, p := range cands {
		wait := skOp{kind: skWait, cta: p, part: part, tile: it.Tile}
		if s.l.Bugs.ArrivalOrder {
			wait.candidates = cands
		}
		if !s.l.Bugs.OwnerNoWait {
			waits = append(waits, len(ops))
			ops = append(ops, wait)
		}
		if s.l.ResetFlags {
			ops = append(ops, skOp{kind: skReset, cta: p, part: part, tile: it.Tile})
		}
		reads = append(reads, skOp{kind: skRead, cta: p, part: part, tile: it.Tile})
	}
	for k, i := range waits {
		ops[i].readAt = len(ops) + k - i
	}
	ops = append(ops, reads...)
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
		s.slotData[slot] = skSlot{s.launch, o.tile, o.kb0, o.kb1}
	case skRelease:
		s.released[slot] = -1
		if s.written[slot] == s.launch {
			s.released[slot] = s.launch
		}
		s.flags[slot] = s.epoch()
	case skWait:
		if r.hung {
			return // sw_sk_wait returns at once once hung
		}
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
	case skFinish:
		s.finish()
	}
}

// finish is sw_sk_finish: the last consumer of the grid records the epoch
// (AdvanceFirst: the first one does), zeroing the flags when they wrap.
func (s *skSim) finish() {
	s.done++
	first, last := s.done == 1, s.done == 2*len(s.l.Items)
	if last {
		s.done = 0
	}
	advance := last
	if s.l.Bugs.AdvanceFirst {
		advance = first
	}
	if !advance || s.l.Bugs.NoAdvance {
		return
	}
	e := s.epoch()
	if e < s.maxEpoch() {
		s.header = e
		return
	}
	s.header = 0
	if !s.l.Bugs.NoWrapZero {
		clear(s.flags)
	}
}

// pickArrived (the ArrivalOrder bug) takes any contributor whose flag is
// set and points the wait, its reset and its read at it: the reads follow
// the flags' arrival.
func (s *skSim) pickArrived(r *skRole, o *skOp) {
	var ready []int
	for _, b := range o.candidates {
		if s.flags[[2]int{b, o.part}] == s.epoch() && !slices.Contains(r.acc[-1-o.tile], b) {
			ready = append(ready, b)
		}
	}
	b := ready[s.rng.Intn(len(ready))]
	r.acc[-1-o.tile] = append(r.acc[-1-o.tile], b)
	o.cta = b
	r.ops[r.pc-1+o.readAt].cta = b
	if r.ops[r.pc].kind == skReset {
		r.ops[r.pc].cta = b
	}
}

func (s *skSim) read(r *skRole, o *skOp, slot [2]int, where string) {
	if r.hung {
		return // this launch's output is wrong: the wait gave up
	}
	sl := s.slotData[slot]
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
	if r.hung {
		return
	}
	got := r.kbs[o.tile] + o.kb1 - o.kb0
	if got != s.l.KBlocks {
		s.fail("sum", where, "the epilogue runs on %d of %d k-blocks", got, s.l.KBlocks)
	}
	if !slices.IsSorted(r.acc[o.tile]) {
		s.fail("order", where, "partials added in CTA order %v: not the fixed order, so the output's rounding depends on timing", r.acc[o.tile])
	}
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
