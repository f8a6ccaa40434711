package protocol

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// waitKind is how a rendered wait behaves when its phase never completes:
// sw_mbar_wait and sw_mbar_wait_cluster trap after the hang deadline (the
// launch fails); sw_mbar_wait_nt, the sm_90a consumers' wait, gives up and
// lets every later wait of the thread return at once (wrong results).
type waitKind int

const (
	waitTrap waitKind = iota
	waitNT
)

type opKind int

const (
	opWait       opKind = iota // mbarrier.try_wait.parity loop
	opArrive                   // mbarrier.arrive on one or more barriers
	opExpectTx                 // mbarrier.arrive.expect_tx
	opLoad                     // TMA load: writes buffers, completes tx (async)
	opAcquire                  // start reading (or rewriting) buffers
	opRelease                  // stop reading or rewriting a buffer
	opWrite                    // a generic-proxy write of a whole buffer generation
	opWriteBegin               // tcgen05.mma starts writing a TMEM buffer
	opStore                    // TMA store + commit_group: reads a buffer (async)
	opWaitRead                 // cp.async.bulk.wait_group.read N
	opCommit                   // tcgen05.commit: arrives once prior MMAs are done (async)
	opCancel                   // clusterlaunchcontrol.try_cancel: multicast response (async)
	opRegDec                   // setmaxnreg.dec: frees registers
	opRegInc                   // setmaxnreg.inc: blocks until registers are free
	opSyncArrive               // barrier.cluster / __syncthreads arrive
	opSyncWait                 // ... and wait for every member
)

type holdMode int

const (
	holdRead   holdMode = iota // readers share a buffer
	holdModify                 // one role rewrites the buffer in place
	// holdLast reads like holdRead and is the generation's last read: the
	// readers counted after it skip this generation (an sm_100a expert's
	// ragged sub-tile is stored from registers, so no TMA store reads its
	// de slot).
	holdLast
)

// target is one destination of a TMA load or CLC response: the barrier
// whose tx count it completes and the buffer it writes.
type target struct{ bar, buf int }

// op is one step of a role's program.
type op struct {
	kind    opKind
	bar     int   // opWait, opExpectTx
	bars    []int // opArrive, opCommit: barriers arrived on
	bufs    []int // opAcquire, opWriteBegin, opCommit (holds it releases)
	ends    []int // opCommit: TMEM writes it completes
	targets []target
	buf     int
	n       int // arrivals, bytes, registers, wait_group N
	tag     int // the phase (barriers) or generation (buffers) meant
	want    int // opWait: completed phases the role needs
	parity  int // opWait: the parity the rendered code passes
	wk      waitKind
	mode    holdMode
	sync    string
}

type evKind int

const (
	evLoad evKind = iota
	evCommit
	evStore
	evCancel
)

// event is an asynchronous operation in flight: it completes at a time
// the policy picks. Nothing orders two of them, not even two commits of
// one thread: their arrivals are delivered asynchronously.
type event struct {
	kind   evKind
	src    int // issuing role
	class  string
	op     *op
	holder string // the name it holds buffers under
	done   bool
}

type barrier struct {
	name       string
	init       int
	txPerPhase int
	completed  int
	pending    int
	tx         int
	landed     int
	tally      map[int]int // arrivals by the phase they were meant for
}

type buffer struct {
	name    string
	size    int // bytes a generation must be filled with; 0: unchecked
	readers int // acquisitions a generation must see before it is overwritten
	gen     int
	filled  int
	writing int
	reads   int
	holders map[string]holdMode
}

type role struct {
	idx         int
	name, class string
	cta         int
	ops         []op
	pc          int
	stores      []*event
	hung        bool
	warned      bool
}

type syncPoint struct{ members, arrived int }

// sim is one run: the roles of one cluster stepping their programs
// against the barriers, buffers and asynchronous operations.
type sim struct {
	roles  []*role
	bars   []*barrier
	bufs   []*buffer
	barIdx map[string]int
	bufIdx map[string]int
	events []*event
	regs   []int
	syncs  map[string]*syncPoint

	pol       Policy
	lagCTA    int
	rng       *rand.Rand
	pref, lag []int // pick's candidates, reused
	rr        int
	steps     int
	relaxed   bool
	viol      []Violation
}

func newSim(pol Policy, ctas int) *sim {
	s := &sim{barIdx: map[string]int{}, bufIdx: map[string]int{}, syncs: map[string]*syncPoint{},
		regs: make([]int, ctas), pol: pol, lagCTA: pol.lagCTA()}
	if pol.Seed != 0 {
		s.rng = rand.New(rand.NewPCG(uint64(pol.Seed), 0x5eed))
	}
	return s
}

// addBar declares barrier name with its init count and the tx bytes one
// phase must land (0: none).
func (s *sim) addBar(name string, init, tx int) int {
	s.bars = append(s.bars, &barrier{name: name, init: init, txPerPhase: tx, pending: init, tally: map[int]int{}})
	s.barIdx[name] = len(s.bars) - 1
	return len(s.bars) - 1
}

// addBuf declares buffer name: a generation must be filled with size
// bytes (0: unchecked) and acquired readers times before it is replaced.
func (s *sim) addBuf(name string, size, readers int) int {
	s.bufs = append(s.bufs, &buffer{name: name, size: size, readers: readers, gen: -1, holders: map[string]holdMode{}})
	s.bufIdx[name] = len(s.bufs) - 1
	return len(s.bufs) - 1
}

func (s *sim) bar(name string) int {
	i, ok := s.barIdx[name]
	if !ok {
		panic("protocol: no barrier " + name)
	}
	return i
}

func (s *sim) buf(name string) int {
	i, ok := s.bufIdx[name]
	if !ok {
		panic("protocol: no buffer " + name)
	}
	return i
}

func (s *sim) addRole(cta int, class string, ops []op) {
	r := &role{idx: len(s.roles), name: fmt.Sprintf("cta%d/%s", cta, class), class: class, cta: cta, ops: ops}
	for _, o := range ops {
		if o.kind == opSyncArrive {
			sp := s.syncs[o.sync]
			if sp == nil {
				sp = &syncPoint{}
				s.syncs[o.sync] = sp
			}
			sp.members++
		}
	}
	s.roles = append(s.roles, r)
}

func (s *sim) fail(check, where, format string, args ...any) {
	if s.relaxed {
		return
	}
	s.viol = append(s.viol, Violation{Check: check, Where: where, Detail: fmt.Sprintf(format, args...)})
}

// run steps the roles and events until every role is done (the CTAs
// exit) or none can move, then checks what a finished kernel must leave
// behind.
func (s *sim) run(limit int) {
	for len(s.viol) == 0 && !s.finished() {
		c, ok := s.pick()
		if !ok {
			break
		}
		if c >= 0 {
			s.step(s.roles[c])
		} else {
			s.complete(-c - 1)
		}
		if s.steps++; s.steps > limit {
			s.fail(CheckTerminates, "sim", "more than %d steps", limit)
			return
		}
	}
	if len(s.viol) > 0 {
		return
	}
	if blocked := s.blocked(); len(blocked) > 0 {
		v := Violation{Check: CheckDeadlock, Where: "cluster", Detail: strings.Join(blocked, "; ")}
		v.Outcome = s.outcome()
		s.viol = append(s.viol, v)
		return
	}
	s.finalChecks()
}

// finished reports whether every role has run its whole program.
func (s *sim) finished() bool {
	for _, r := range s.roles {
		if r.pc < len(r.ops) {
			return false
		}
	}
	return true
}

// pick returns the next role (>= 0) or event (-index-1) to step: among
// those that can move, the ones the policy does not hold back, then round
// robin or by the policy's random stream.
func (s *sim) pick() (int, bool) {
	pref, lag := s.pref[:0], s.lag[:0]
	for i, r := range s.roles {
		if r.pc < len(r.ops) && s.enabled(r) {
			if r.class == s.pol.Lag || r.cta == s.lagCTA {
				lag = append(lag, i)
			} else {
				pref = append(pref, i)
			}
		}
	}
	for i, e := range s.events {
		c := -i - 1
		if s.pol.Lag == "async" || s.pol.Lag == e.class {
			lag = append(lag, c)
		} else {
			pref = append(pref, c)
		}
	}
	s.pref, s.lag = pref, lag // kept apart: the next pick appends to both
	if len(pref) == 0 {
		pref = lag
	}
	if len(pref) == 0 {
		return 0, false
	}
	s.rr++
	if s.rng != nil {
		return pref[s.rng.IntN(len(pref))], true
	}
	return pref[s.rr%len(pref)], true
}

func (s *sim) enabled(r *role) bool {
	o := &r.ops[r.pc]
	switch o.kind {
	case opWait:
		if r.hung && o.wk == waitNT {
			return true
		}
		b := s.bars[o.bar]
		if b.completed > o.want && !r.warned {
			r.warned = true
			s.fail(CheckParity, r.name, "waits on %s for phase %d (parity %d), but %d phases have completed: the phase it needs passed before it looked", b.name, o.want-1, o.parity, b.completed)
		}
		return b.completed&1 != o.parity
	case opRegInc:
		return s.regs[r.cta] >= o.n
	case opWaitRead:
		for _, e := range r.stores[:max(0, len(r.stores)-o.n)] {
			if !e.done {
				return false
			}
		}
		return true
	case opSyncWait:
		sp := s.syncs[o.sync]
		return sp.arrived >= sp.members
	}
	return true
}

func (s *sim) step(r *role) {
	o := &r.ops[r.pc]
	r.pc++
	switch o.kind {
	case opWait:
		b := s.bars[o.bar]
		if b.completed != o.want && !(r.hung && o.wk == waitNT) {
			s.fail(CheckParity, r.name, "wait on %s for phase %d returned with %d phases completed (parity %d aliases another phase)", b.name, o.want-1, b.completed, o.parity)
		}
	case opArrive:
		for _, b := range o.bars {
			s.arrive(b, o.n, o.tag, r.name)
		}
	case opExpectTx:
		b := s.bars[o.bar]
		b.tx += o.n
		s.arrive(o.bar, 1, o.tag, r.name)
	case opLoad:
		for _, t := range o.targets {
			s.writeBegin(t.buf, o.tag, r.name)
		}
		s.events = append(s.events, &event{kind: evLoad, src: r.idx, class: "tma", op: o})
	case opAcquire:
		for _, b := range o.bufs {
			s.acquire(b, o.tag, o.mode, r.name)
		}
	case opRelease:
		delete(s.bufs[o.buf].holders, r.name)
	case opWrite:
		s.writeBegin(o.buf, o.tag, r.name)
		s.writeEnd(o.buf, 0)
	case opWriteBegin:
		for _, b := range o.bufs {
			s.writeBegin(b, o.tag, r.name)
		}
	case opStore:
		e := &event{kind: evStore, src: r.idx, class: "store", op: o, holder: fmt.Sprintf("%s/store%d", r.name, len(r.stores))}
		s.acquire(o.buf, o.tag, holdRead, e.holder)
		r.stores = append(r.stores, e)
		s.events = append(s.events, e)
	case opCommit:
		s.events = append(s.events, &event{kind: evCommit, src: r.idx, class: "commit", op: o, holder: r.name})
	case opCancel:
		for _, t := range o.targets {
			s.writeBegin(t.buf, o.tag, r.name)
		}
		s.events = append(s.events, &event{kind: evCancel, src: r.idx, class: "clc", op: o})
	case opRegDec:
		s.regs[r.cta] += o.n
	case opRegInc:
		s.regs[r.cta] -= o.n
	case opSyncArrive:
		s.syncs[o.sync].arrived++
	}
}

// complete finishes event i.
func (s *sim) complete(i int) {
	e := s.events[i]
	s.events = append(s.events[:i], s.events[i+1:]...)
	e.done = true
	o := e.op
	switch e.kind {
	case evLoad, evCancel:
		for _, t := range o.targets {
			s.writeEnd(t.buf, o.n)
			s.land(t.bar, o.n, o.tag, s.roles[e.src].name)
		}
	case evStore:
		delete(s.bufs[o.buf].holders, e.holder)
	case evCommit:
		for _, b := range o.bufs {
			delete(s.bufs[b].holders, e.holder)
		}
		for _, b := range o.ends {
			s.writeEnd(b, 0)
		}
		for _, b := range o.bars {
			s.arrive(b, 1, o.tag, e.holder+" (commit)")
		}
	}
}

func (s *sim) arrive(bi, n, tag int, who string) {
	b := s.bars[bi]
	if tag != b.completed {
		s.fail(CheckArrivals, who, "arrival meant for phase %d of %s landed on phase %d", tag, b.name, b.completed)
	}
	b.tally[tag] += n
	b.pending -= n
	if b.pending < 0 {
		s.fail(CheckArrivals, who, "%d arrivals on phase %d of %s, init count %d", b.init-b.pending, b.completed, b.name, b.init)
	}
	s.settle(bi)
}

func (s *sim) land(bi, bytes, tag int, who string) {
	b := s.bars[bi]
	if tag != b.completed {
		s.fail(CheckTx, who, "%d bytes meant for phase %d of %s landed on phase %d", bytes, tag, b.name, b.completed)
	}
	b.tx -= bytes
	b.landed += bytes
	s.settle(bi)
}

// settle completes the barrier's phase once its arrivals and tx count
// reach zero, and checks who was waiting for it.
func (s *sim) settle(bi int) {
	b := s.bars[bi]
	if b.pending != 0 || b.tx != 0 {
		return
	}
	if b.landed != b.txPerPhase {
		s.fail(CheckTx, b.name, "phase %d completed with %d bytes landed, want %d", b.completed, b.landed, b.txPerPhase)
	}
	b.completed++
	b.pending, b.landed = b.init, 0
	for _, r := range s.roles {
		if r.pc < len(r.ops) && r.ops[r.pc].kind == opWait && r.ops[r.pc].bar == bi {
			s.enabled(r) // reports a waiter whose phase has been overtaken
		}
	}
}

func (s *sim) writeBegin(bi, gen int, who string) {
	b := s.bufs[bi]
	if gen != b.gen {
		for h := range b.holders {
			s.fail(CheckOverwrite, who, "writes generation %d of %s while %s still reads generation %d", gen, b.name, h, b.gen)
			break
		}
		if b.gen >= 0 && b.reads < b.readers {
			s.fail(CheckOverwrite, who, "writes generation %d of %s before generation %d was read by its %d readers (%d so far)", gen, b.name, b.gen, b.readers, b.reads)
		}
		if gen < b.gen {
			s.fail(CheckOverwrite, who, "writes generation %d of %s after generation %d", gen, b.name, b.gen)
		}
		b.gen, b.filled, b.reads = gen, 0, 0
	} else if len(b.holders) > 0 {
		s.fail(CheckOverwrite, who, "writes %s (generation %d) while it is being read", b.name, gen)
	}
	b.writing++
}

func (s *sim) writeEnd(bi, bytes int) {
	b := s.bufs[bi]
	b.writing--
	b.filled += bytes
}

func (s *sim) acquire(bi, gen int, mode holdMode, who string) {
	b := s.bufs[bi]
	switch {
	case b.gen < gen:
		s.fail(CheckRead, who, "reads generation %d of %s, which holds generation %d: it was not written yet", gen, b.name, b.gen)
	case b.gen > gen:
		s.fail(CheckOverwrite, who, "reads generation %d of %s, already overwritten by generation %d", gen, b.name, b.gen)
	case b.writing > 0 || b.size > 0 && b.filled != b.size:
		s.fail(CheckRead, who, "reads generation %d of %s with %d of %d bytes written, %d writes in flight", gen, b.name, b.filled, b.size, b.writing)
	}
	for h, m := range b.holders {
		if m == holdModify || mode == holdModify {
			s.fail(CheckOverwrite, who, "acquires %s while %s rewrites or reads it", b.name, h)
			break
		}
	}
	b.reads++
	if mode == holdLast {
		b.reads = max(b.reads, b.readers)
	}
	b.holders[who] = mode
}

// blocked describes the roles that did not finish.
func (s *sim) blocked() []string {
	var out []string
	for _, r := range s.roles {
		if r.pc < len(r.ops) {
			out = append(out, r.name+": "+s.describe(&r.ops[r.pc], r.cta))
		}
	}
	return out
}

func (s *sim) describe(o *op, cta int) string {
	switch o.kind {
	case opWait:
		b := s.bars[o.bar]
		return fmt.Sprintf("waits on %s parity %d for phase %d (%d completed, %d of %d arrivals and %d tx bytes pending)", b.name, o.parity, o.want-1, b.completed, b.pending, b.init, b.tx)
	case opRegInc:
		return fmt.Sprintf("setmaxnreg.inc needs %d more registers per thread, %d free", o.n, s.regs[cta])
	case opWaitRead:
		return fmt.Sprintf("cp.async.bulk.wait_group.read %d", o.n)
	case opSyncWait:
		sp := s.syncs[o.sync]
		return fmt.Sprintf("%s: %d of %d arrived", o.sync, sp.arrived, sp.members)
	}
	return fmt.Sprintf("op %d", o.kind)
}

// outcome says what the H200 (or a B200) would do in the deadlock just
// found: a blocked trapping wait fails the launch after the hang
// deadline; consumer waits without a trap give up and the kernel may
// finish with wrong results; anything else (setmaxnreg, barrier.cluster)
// hangs.
func (s *sim) outcome() string {
	s.relaxed = true
	for {
		trap := false
		for _, r := range s.roles {
			if r.pc < len(r.ops) && r.ops[r.pc].kind == opWait {
				if r.ops[r.pc].wk == waitTrap {
					trap = true
				} else {
					r.hung = true
				}
			}
		}
		if trap {
			return OutcomeTrap
		}
		for {
			c, ok := s.pick()
			if !ok {
				break
			}
			if c >= 0 {
				s.step(s.roles[c])
			} else {
				s.complete(-c - 1)
			}
		}
		if len(s.blocked()) == 0 {
			return OutcomeWrong
		}
		progress := false
		for _, r := range s.roles {
			if r.pc < len(r.ops) && r.ops[r.pc].kind == opWait && !r.hung {
				progress = true
			}
		}
		if !progress {
			return OutcomeHang
		}
	}
}

// finalChecks runs once every role has finished: nothing may be in flight
// towards the exiting CTAs, every phase begun must have completed, and
// every buffer's last generation must have been read.
func (s *sim) finalChecks() {
	for _, e := range s.events {
		s.fail(CheckExit, s.roles[e.src].name, "a %s is still in flight when the CTAs exit", e.class)
		return
	}
	for _, b := range s.bars {
		if b.pending != b.init || b.tx != 0 {
			s.fail(CheckArrivals, b.name, "phase %d left incomplete: %d of %d arrivals, %d tx bytes pending", b.completed, b.init-b.pending, b.init, b.tx)
		}
		tags := make([]int, 0, len(b.tally))
		for p := range b.tally {
			tags = append(tags, p)
		}
		sort.Ints(tags)
		for _, p := range tags {
			if b.tally[p] != b.init {
				s.fail(CheckArrivals, b.name, "phase %d received %d arrivals, init count %d", p, b.tally[p], b.init)
			}
		}
	}
	for _, b := range s.bufs {
		if b.gen >= 0 && b.reads < b.readers {
			s.fail(CheckOverwrite, b.name, "last generation %d read %d times, want %d", b.gen, b.reads, b.readers)
		}
	}
}
