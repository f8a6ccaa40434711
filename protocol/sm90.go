package protocol

import "fmt"

// The sm_90a roles (sm90a_kernel.cuh.tmpl and the kinds' partials), per
// CTA of the cluster:
//
//   - producer (warp 0, one thread): setmaxnreg.dec; for every k-block of
//     every local tile, waits for the stage's release, expect-tx, and
//     issues its TMA loads (a cluster's shared operand multicast from the
//     CTA that owns that share);
//   - epiload<c> (warps 1 and 2, kinds with epilogue loads): per valid
//     sub-tile of consumer c, waits for the slot's release, (bwd_dswiglu)
//     TMA-stores the slot's previous results, expect-tx and loads; then
//     drains the last slots;
//   - consumer<c> (warpgroups 1 and 2): setmaxnreg.inc; per tile, the
//     ping-pong order wait, the mainloop (wait full, read the stage,
//     release the previous k-block's stage from every warp), the order
//     arrive once the last k-block is issued, the drain (the last stage's
//     release), and the epilogue (wait the slot, rewrite it, release it; or
//     the store-only slot guard by wait_group.read).
//
// A cluster ends with barrier.cluster from every role.

// geom90 is one sm_90a launch as the kernel sees it.
type geom90 struct {
	sp              *Spec
	m               *SM90
	sc              Scenario
	tilesM, tilesN  int
	unitsM, unitsN  int
	kblocks, ctas   int
	entry, ringSize int
	tiles           [][2]int // the cluster's local tiles, CTA rank 0
	// kbs, before and epi are each local item's k-blocks, the k-blocks of
	// the items before it (its ring position), and whether it runs the
	// epilogue: every item is a whole tile under the static scheduler;
	// stream-K's split parts have fewer k-blocks and only the owner's
	// and whole tiles' run the epilogue.
	kbs, before []int
	epi         []bool
	// rows (grouped scheduler) are each local item's first row and its
	// expert's end.
	rows [][2]int
	// zero (K-grouped walk) marks the local items whose last k-block is
	// ragged: the consumer zeroes that stage's rows past the expert.
	zero []bool
}

func buildSM90(sp *Spec, sc Scenario, cluster int, pol Policy) *sim {
	g := &geom90{sp: sp, m: sp.SM90, sc: sc, ctas: sp.clusterSize()}
	g.tilesM, g.tilesN = ceilDiv(sc.M, sp.TileM), ceilDiv(sc.N, sp.TileN)
	g.unitsM, g.unitsN = ceilDiv(g.tilesM, sp.ClusterM), ceilDiv(g.tilesN, sp.ClusterN)
	g.kblocks = ceilDiv(sc.K, sp.TileK)
	g.entry = 65536 / g.m.Threads / 8 * 8
	g.ringSize = sp.Epi.Stages
	if g.m.SharedEpiRing {
		g.ringSize = 2 * sp.Epi.Stages
	}
	g.items(cluster)
	s := newSim(pol, g.ctas)
	g.declare(s)
	for r := 0; r < g.ctas; r++ {
		s.addRole(r, "producer", g.producer(s, r))
		for c := 0; c < 2; c++ {
			if len(sp.Epi.Loads) > 0 && (c == 0 || !g.m.SharedEpiRing) {
				s.addRole(r, fmt.Sprintf("epiload%d", c), g.epiLoader(s, r, c))
			}
			s.addRole(r, fmt.Sprintf("consumer%d", c), g.consumer(s, r, c))
		}
	}
	return s
}

// items lists cluster's local work items: tiles t = cluster, + Grid, ...
// (static), or its stream-K work list (StreamKItems).
func (g *geom90) items(cluster int) {
	sp, sc := g.sp, g.sc
	add := func(t, kbs, before int, epi bool) {
		um, un := rasterTile(sp.Raster, t, g.unitsM, g.unitsN, sp.SwizzleGroup)
		g.tiles = append(g.tiles, [2]int{um * sp.ClusterM, un * sp.ClusterN})
		g.kbs, g.before, g.epi = append(g.kbs, kbs), append(g.before, before), append(g.epi, epi)
	}
	if g.m.KGrouped {
		all, before := KGroupedTiles(sc.Counts, g.tilesM*g.tilesN, sp.TileK), 0
		for tile := cluster; tile < len(all); tile += sc.Grid {
			t := all[tile]
			in := tile % (g.tilesM * g.tilesN) // n fastest inside the expert
			g.tiles = append(g.tiles, [2]int{in / g.tilesN, in % g.tilesN})
			g.kbs, g.before, g.epi = append(g.kbs, t.KBlocks), append(g.before, before), append(g.epi, true)
			g.zero = append(g.zero, t.Ragged)
			before += t.KBlocks
		}
		return
	}
	if g.m.Grouped {
		all := GroupedTiles(sc.Counts, sp.TileM, g.tilesN)
		for j, t := 0, cluster; t < len(all); j, t = j+1, t+sc.Grid {
			g.tiles = append(g.tiles, [2]int{0, all[t].TN})
			g.kbs, g.before, g.epi = append(g.kbs, g.kblocks), append(g.before, j*g.kblocks), append(g.epi, true)
			g.rows = append(g.rows, [2]int{all[t].Row0, all[t].RowEnd})
		}
		return
	}
	if min := g.m.StreamKMinKBlocks; min > 0 {
		for _, it := range StreamKItems(g.unitsM*g.unitsN, g.kblocks, sc.Grid, cluster, min) {
			add(it.Tile, it.KB1-it.KB0, it.Before, it.Role != SKPartial)
		}
		return
	}
	for j, t := 0, cluster; t < g.unitsM*g.unitsN; j, t = j+1, t+sc.Grid {
		add(t, g.kblocks, j*g.kblocks, true)
	}
}

func nm(r int, base string, i int) string { return fmt.Sprintf("cta%d/%s[%d]", r, base, i) }

// ring is the epilogue ring consumer c uses: its own, or the shared one.
func (g *geom90) ring(c int) string {
	if g.m.SharedEpiRing {
		return "e"
	}
	return fmt.Sprintf("c%d.e", c)
}

func (g *geom90) declare(s *sim) {
	sp := g.sp
	readers := 2 // both consumers read every stage
	if g.m.Schedule == PingPong {
		readers = 1
	}
	epiReaders, epiSize := 1, 0 // store-only: the TMA store reads the slot
	if len(sp.Epi.Loads) > 0 {
		epiReaders, epiSize = 2, sp.Epi.FillBytes // the consumer rewrites it, a TMA store reads it
	}
	rings := []string{g.ring(0), g.ring(1)}
	if g.m.SharedEpiRing {
		rings = rings[:1]
	}
	for r := 0; r < g.ctas; r++ {
		for st := 0; st < sp.Ring.Stages; st++ {
			s.addBar(nm(r, "full", st), sp.Ring.FullInit, sp.Ring.StageBytes)
			s.addBar(nm(r, "empty", st), sp.Ring.EmptyInit, 0)
			s.addBuf(nm(r, "stage", st), sp.Ring.StageBytes, readers)
		}
		for _, e := range rings {
			for st := 0; st < g.ringSize; st++ {
				s.addBar(nm(r, e+"full", st), sp.Epi.FullInit, epiSize)
				s.addBar(nm(r, e+"empty", st), sp.Epi.EmptyInit, 0)
				s.addBuf(nm(r, e+"slot", st), epiSize, epiReaders)
			}
		}
		for c := 0; c < 2; c++ {
			s.addBar(nm(r, "order", c), g.m.OrderInit, 0)
		}
	}
}

// tileOf is the output tile of local tile j in CTA rank r.
func (g *geom90) tileOf(j, r int) (tm, tn int) {
	tm, tn = g.tiles[j][0], g.tiles[j][1]
	if g.sp.ClusterM == 2 {
		tm += r
	}
	if g.sp.ClusterN == 2 {
		tn += r
	}
	return tm, tn
}

// subtiles are the epilogue sub-tiles of local tile j that consumer c
// runs in CTA r (rows and columns inside the tensor), in order.
func (g *geom90) subtiles(j, r, c int) int { return len(g.subtileRows(j, r, c)) }

// subtileRows lists the sub-tiles subtiles counts, in order: true where
// not all SubM rows are the expert's (grouped scheduler), so the consumer
// stores the expert's rows row by row instead of TMA-storing the slot.
func (g *geom90) subtileRows(j, r, c int) []bool {
	tm, tn := g.tileOf(j, r)
	r0, n0 := tm*g.sp.TileM+c*g.m.ConsumerRowStride, tn*g.sp.TileN
	end := g.sc.M
	if g.rows != nil {
		r0, end = g.rows[j][0]+c*g.m.ConsumerRowStride, g.rows[j][1]
	}
	var ragged []bool
	for mb := 0; mb < g.m.MB; mb++ {
		for nb := 0; nb < g.m.NB; nb++ {
			// The last sub-tile of a tile narrower than NB whole ones is
			// its last SubN columns (kSubCol).
			rr := r0 + mb*g.sp.SubM
			if rr < end && n0+min(nb*g.sp.SubN, g.sp.TileN-g.sp.SubN) < g.sc.N {
				ragged = append(ragged, g.rows != nil && rr+g.sp.SubM > end)
			}
		}
	}
	return ragged
}

// pingPongConsumer is the ping-pong consumer that runs local tile j.
func pingPongConsumer(j int) int { return j % 2 }

// finalSync is the cluster barrier every role ends with (none without a
// cluster).
func (g *geom90) finalSync() []op {
	if g.ctas == 1 {
		return nil
	}
	return []op{{kind: opSyncArrive, sync: "barrier.cluster"}, {kind: opSyncWait, sync: "barrier.cluster"}}
}

func (g *geom90) producer(s *sim, r int) []op {
	sp := g.sp
	ops := []op{{kind: opRegDec, n: g.entry - g.m.ProducerRegs}}
	if g.m.HangProbe {
		ops = append(ops, op{kind: opWait, bar: s.bar(nm(r, "full", 0)), want: 1, parity: 0, wk: waitTrap})
	}
	it := 0
	for j := range g.tiles {
		for kb := 0; kb < g.kbs[j]; kb++ {
			st, u := it%sp.Ring.Stages, it/sp.Ring.Stages
			full := s.bar(nm(r, "full", st))
			ops = append(ops,
				op{kind: opWait, bar: s.bar(nm(r, "empty", st)), want: u, parity: sp.Ring.EmptyParity.of(it), wk: waitTrap},
				op{kind: opExpectTx, bar: full, n: sp.Ring.TxBytes, tag: u})
			for _, l := range sp.Ring.Loads {
				var ts []target
				switch {
				case l.Rank < 0:
					ts = []target{{full, s.buf(nm(r, "stage", st))}}
				case l.Rank == r:
					for x := 0; x < g.ctas; x++ {
						ts = append(ts, target{s.bar(nm(x, "full", st)), s.buf(nm(x, "stage", st))})
					}
				default:
					continue
				}
				ops = append(ops, op{kind: opLoad, targets: ts, n: l.Bytes, tag: u})
			}
			it++
		}
	}
	return append(ops, g.finalSync()...)
}

// epiSeq lists, for consumer c of CTA r (the shared ring: every tile,
// loader 0), the local tiles it takes and the index of their first
// sub-tile in its ring's sequence.
func (g *geom90) epiSeq(r, c int, loader bool) (tiles, first []int) {
	e := 0
	for j := range g.tiles {
		if !g.epi[j] {
			continue // a split part: its owner runs the epilogue
		}
		var n int
		mine := false
		switch {
		case g.m.SharedEpiRing:
			n = g.subtiles(j, r, pingPongConsumer(j))
			mine = loader || pingPongConsumer(j) == c
		default:
			n = g.subtiles(j, r, c)
			mine = j >= c*g.m.TileStart && (j-c*g.m.TileStart)%g.m.TileStep == 0
		}
		if mine {
			tiles, first = append(tiles, j), append(first, e)
		}
		if mine || g.m.SharedEpiRing {
			e += n
		}
	}
	return tiles, first
}

func (g *geom90) epiLoader(s *sim, r, c int) []op {
	sp, ring := g.sp, g.ring(c)
	E := g.ringSize
	var ops []op
	tiles, first := g.epiSeq(r, c, true)
	e := 0
	for i, j := range tiles {
		cc := c
		if g.m.SharedEpiRing {
			cc = pingPongConsumer(j)
		}
		e = first[i]
		for q := 0; q < g.subtiles(j, r, cc); q++ {
			st, u := e%E, e/E
			slot, full := s.buf(nm(r, ring+"slot", st)), s.bar(nm(r, ring+"full", st))
			ops = append(ops, op{kind: opWait, bar: s.bar(nm(r, ring+"empty", st)), want: u, parity: sp.Epi.EmptyParity.of(e), wk: waitTrap})
			if sp.Epi.ProducerStores && e >= E {
				ops = append(ops, op{kind: opStore, buf: slot, tag: u - 1}, op{kind: opWaitRead, n: 0})
			}
			ops = append(ops, op{kind: opExpectTx, bar: full, n: sp.Epi.TxBytes, tag: u})
			for _, b := range sp.Epi.Loads {
				ops = append(ops, op{kind: opLoad, targets: []target{{full, slot}}, n: b, tag: u})
			}
			e++
		}
	}
	if sp.Epi.ProducerStores {
		for p := 0; p < E; p++ {
			idx := e - E + p
			if idx < 0 {
				continue
			}
			st := idx % E
			ops = append(ops,
				op{kind: opWait, bar: s.bar(nm(r, ring+"empty", st)), want: idx/E + 1, parity: sp.Epi.DrainParity.of(idx), wk: waitTrap},
				op{kind: opStore, buf: s.buf(nm(r, ring+"slot", st)), tag: idx / E})
		}
		ops = append(ops, op{kind: opWaitRead, n: 0})
	}
	return append(ops, g.finalSync()...)
}

// kblock is one k-block of a consumer's mainloop at iteration it: wait
// for the stage and hold it in mode (holdRead; holdModify where the
// consumer first rewrites it, the K-grouped walk's ragged k-block), then
// release the previous k-block's stage (its wgmmas are done:
// wgmma.wait_group 1).
func (g *geom90) kblock(s *sim, r, it, kb int, mode holdMode) []op {
	sp := g.sp
	st, u := it%sp.Ring.Stages, it/sp.Ring.Stages
	ops := []op{
		{kind: opWait, bar: s.bar(nm(r, "full", st)), want: u + 1, parity: sp.Ring.FullParity.of(it), wk: waitNT},
		{kind: opAcquire, bufs: []int{s.buf(nm(r, "stage", st))}, tag: u, mode: mode},
	}
	if kb > 0 {
		ops = append(ops, g.release(s, r, it-1)...)
	}
	return ops
}

// release frees the stage of iteration it: lane 0 of each consumer warp
// arrives on its empty barrier, in every CTA of a cluster.
func (g *geom90) release(s *sim, r, it int) []op {
	sp := g.sp
	st, u := it%sp.Ring.Stages, it/sp.Ring.Stages
	var bars []int
	for x := 0; x < g.ctas; x++ {
		if x == r || g.m.ReleaseAllCTAs {
			bars = append(bars, s.bar(nm(x, "empty", st)))
		}
	}
	return []op{
		{kind: opRelease, buf: s.buf(nm(r, "stage", st))},
		{kind: opArrive, bars: bars, n: g.m.ReleaseWarps, tag: u},
	}
}

func (g *geom90) consumer(s *sim, r, c int) []op {
	ops := []op{{kind: opRegInc, n: g.m.ConsumerRegs - g.entry}}
	if g.m.Schedule == Overlap {
		ops = append(ops, g.overlapConsumer(s, r, c)...)
	} else {
		ops = append(ops, g.tileConsumer(s, r, c)...)
	}
	ops = append(ops, op{kind: opWaitRead, n: 0})
	return append(ops, g.finalSync()...)
}

// tileConsumer is the ping-pong and cooperative consumer: mainloop, then
// the tile's epilogue.
func (g *geom90) tileConsumer(s *sim, r, c int) []op {
	var ops []op
	epiTiles, epiFirst := g.epiSeq(r, c, false)
	turn, epiTurn := 0, 0
	for j := c * g.m.TileStart; j < len(g.tiles); j, turn = j+g.m.TileStep, turn+1 {
		if g.m.OrderWait && j > 0 {
			ops = append(ops, op{kind: opWait, bar: s.bar(nm(r, "order", c)), want: turn + c, parity: g.m.OrderParity.of(turn - 1 + c), wk: waitNT})
		}
		order := op{kind: opArrive, bars: []int{s.bar(nm(r, "order", 1-c))}, n: 1, tag: turn}
		arriveAt := max(g.kbs[j]-g.m.OrderLead, 0) // k-blocks issued when the consumer arrives
		it := g.before[j]
		for kb := 0; kb < g.kbs[j]; kb++ {
			if g.m.OrderWait && kb == arriveAt {
				ops = append(ops, order)
			}
			mode := holdRead
			if g.zero != nil && g.zero[j] && kb == g.kbs[j]-1 {
				mode = holdModify // sched_consumer_stage zeroes the rows past the expert
			}
			ops = append(ops, g.kblock(s, r, it, kb, mode)...)
			it++
		}
		if g.m.OrderWait && arriveAt == g.kbs[j] {
			// Every k-block issued, the last not yet drained.
			ops = append(ops, order)
		}
		if g.kbs[j] > 0 {
			ops = append(ops, g.release(s, r, it-1)...)
		}
		if !g.epi[j] {
			continue // stream-K partial: stored to global memory, no epilogue (streamk.go)
		}
		e := epiFirst[epiTurn]
		if epiTiles[epiTurn] != j {
			panic("protocol: consumer and epilogue tile orders disagree")
		}
		epiTurn++
		for _, ragged := range g.subtileRows(j, r, c) {
			ops = append(ops, g.subtileEpilogue(s, r, c, e, ragged)...)
			e++
		}
	}
	return ops
}

// subtileEpilogue is sub-tile e of consumer c's epilogue; ragged: an
// expert's ragged last sub-tile (subtileRows).
func (g *geom90) subtileEpilogue(s *sim, r, c, e int, ragged bool) []op {
	sp, ring, E := g.sp, g.ring(c), g.ringSize
	st, u := e%E, e/E
	slot := s.buf(nm(r, ring+"slot", st))
	if len(sp.Epi.Loads) == 0 {
		// Store-only: the slot's store of EpiStages sub-tiles ago has read it.
		ops := []op{
			{kind: opWaitRead, n: sp.Epi.StoreLag},
			{kind: opWrite, buf: slot, tag: u},
		}
		if ragged {
			// Stored row by row: the consumer's generic loads of the
			// slot, in program order, and no bulk group, so the next
			// sub-tile's wait_group.read StoreLag would count one group
			// too few: wait for them all here.
			return append(ops,
				op{kind: opAcquire, bufs: []int{slot}, tag: u, mode: holdRead},
				op{kind: opRelease, buf: slot},
				op{kind: opWaitRead, n: 0})
		}
		return append(ops, op{kind: opStore, buf: slot, tag: u})
	}
	ops := []op{
		{kind: opWait, bar: s.bar(nm(r, ring+"full", st)), want: u + 1, parity: sp.Epi.FullParity.of(e), wk: waitNT},
		{kind: opAcquire, bufs: []int{slot}, tag: u, mode: holdModify},
		{kind: opRelease, buf: slot},
	}
	if !sp.Epi.ProducerStores {
		// fwd_down with a residual: the consumer stores y and frees the
		// slot once the store has read it.
		ops = append(ops, op{kind: opStore, buf: slot, tag: u}, op{kind: opWaitRead, n: 0})
	}
	return append(ops, op{kind: opArrive, bars: []int{s.bar(nm(r, ring+"empty", st))}, n: sp.Epi.ReleaseArrivals, tag: u})
}

// overlapConsumer is the overlap schedule's consumer
// (sm90a_overlap.cuh.tmpl): every tile's mainloop runs the previous
// tile's epilogue in slices between its k-blocks.
func (g *geom90) overlapConsumer(s *sim, r, c int) []op {
	sp, m := g.sp, g.m
	var ops []op
	e := 0
	pending := -1
	slice := func(q int) {
		tm, tn := g.tileOf(pending, r)
		prr, pcc := tm*sp.TileM+c*m.ConsumerRowStride, tn*sp.TileN
		nb := q / m.OverlapSubSlices
		if prr >= g.sc.M || pcc+nb*sp.SubN >= g.sc.N {
			return
		}
		E := g.ringSize
		st, u := e%E, e/E
		slot := s.buf(nm(r, g.ring(c)+"slot", st))
		if q%m.OverlapSubSlices == 0 {
			ops = append(ops,
				op{kind: opWait, bar: s.bar(nm(r, g.ring(c)+"full", st)), want: u + 1, parity: sp.Epi.FullParity.of(e), wk: waitNT},
				op{kind: opAcquire, bufs: []int{slot}, tag: u, mode: holdModify})
		}
		if q%m.OverlapSubSlices == m.OverlapSubSlices-1 {
			ops = append(ops, op{kind: opRelease, buf: slot},
				op{kind: opArrive, bars: []int{s.bar(nm(r, g.ring(c)+"empty", st))}, n: sp.Epi.ReleaseArrivals, tag: u})
			e++
		}
	}
	perKB := ceilDiv(m.OverlapSlices, max(g.kblocks, 1))
	for j := range g.tiles {
		it, q := j*g.kblocks, 0
		for kb := 0; kb < g.kblocks; kb++ {
			ops = append(ops, g.kblock(s, r, it, kb, holdRead)...)
			it++
			for n := 0; pending >= 0 && n < perKB && q < m.OverlapSlices; n, q = n+1, q+1 {
				slice(q)
			}
		}
		for ; pending >= 0 && q < m.OverlapSlices; q++ {
			slice(q)
		}
		if g.kblocks > 0 {
			ops = append(ops, g.release(s, r, it-1)...)
		}
		pending = j
	}
	for q := 0; pending >= 0 && q < m.OverlapSlices; q++ {
		slice(q)
	}
	return ops
}
