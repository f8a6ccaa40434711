package protocol

// The sm_100a roles (sm100a_kernel.cuh.tmpl and sm100_ptx.cuh.tmpl), per
// CTA of the cluster:
//
//   - producer (warp 0): per k-block of every tile, waits for the stage's
//     release, (the pair's even CTA) expect-tx of both CTAs' bytes, and
//     loads its own rows into its own stage, completing on the leader's
//     full barrier; then drains the last Stages releases;
//   - mma (warp 1 of the pair's even CTA): per tile, waits for a free
//     TMEM accumulator, per k-block waits for the stage, issues MMAs that
//     read both CTAs' stages and write both CTAs' TMEM, and commits the
//     stage's release (multicast to the pair); commits the accumulator;
//   - epiload (warp 2, kinds with epilogue loads): per sub-tile inside
//     the tensor, waits for the slot, expect-tx, loads;
//   - scheduler (warp 3, clc): CTA 0 waits for a response slot to be
//     read by every role of the cluster and issues try_cancel, whose
//     response lands in every CTA; every CTA's scheduler reads it;
//   - epilogue (warps 4-7): per tile, waits for the accumulator, reads
//     it, frees it on the leader (at once when the CTA holds no rows of
//     the tile), and per sub-tile rewrites and stores a slot.
//
// Every role reads each CLC response (sw_next_tile) until one fails, and
// every role ends at the teardown barrier.

// clcResponseBytes is the size of a try_cancel response (a b128).
const clcResponseBytes = 16

// geom100 is one sm_100a launch as the kernel sees it.
type geom100 struct {
	sp             *Spec
	m              *SM100
	sc             Scenario
	cluster        int
	tilesM, tilesN int
	tiles, kblocks int
	ctas           int
	// gt (grouped walk) is the experts' tile sequence: tile id t is gt[t].
	gt []GroupedTile
}

func buildSM100(sp *Spec, sc Scenario, cluster int, pol Policy) *sim {
	g := &geom100{sp: sp, m: sp.SM100, sc: sc, cluster: cluster, ctas: sp.clusterSize()}
	g.tilesM, g.tilesN = ceilDiv(sc.M, sp.TileM), ceilDiv(sc.N, sp.TileN)
	g.tiles = g.tilesM * g.tilesN
	if g.m.Grouped {
		g.gt = GroupedTiles(sc.Counts, sp.TileM, g.tilesN)
		g.tiles = len(g.gt)
	}
	g.kblocks = ceilDiv(sc.K, sp.TileK)
	s := newSim(pol, g.ctas)
	g.declare(s)
	for r := 0; r < g.ctas; r++ {
		seq := g.sequence(r)
		s.addRole(r, "producer", g.producer(s, r, seq))
		if g.pairRank(r) == 0 {
			s.addRole(r, "mma", g.mma(s, r, seq))
		}
		if len(sp.Epi.Loads) > 0 {
			s.addRole(r, "epiload", g.epiLoader(s, r, seq))
		}
		if g.m.CLC {
			s.addRole(r, "scheduler", g.scheduler(s, r))
		}
		s.addRole(r, "epilogue", g.epilogue(s, r, seq))
	}
	return s
}

func (g *geom100) pairRank(r int) int { return r % g.m.CTAsPerTile }
func (g *geom100) leader(r int) int   { return r - g.pairRank(r) }

// pair are the CTAs whose shared memory and TMEM the leader's MMAs use.
func (g *geom100) pair(r int) []int {
	out := make([]int, g.m.CTAsPerTile)
	for i := range out {
		out[i] = r + i
	}
	return out
}

// commitTargets are the CTAs a tcgen05.commit of CTA r arrives on: the
// multicast mask's ranks for the pair, else r.
func (g *geom100) commitTargets(r int) []int {
	if g.m.CTAsPerTile == 1 {
		return []int{r}
	}
	var out []int
	for x := 0; x < g.ctas; x++ {
		if g.m.CommitMask>>x&1 == 1 {
			out = append(out, x)
		}
	}
	return out
}

func (g *geom100) declare(s *sim) {
	sp, m := g.sp, g.m
	epiReaders, epiSize := 1, 0
	if len(sp.Epi.Loads) > 0 {
		epiReaders, epiSize = 2, sp.Epi.FillBytes
	}
	for r := 0; r < g.ctas; r++ {
		for st := 0; st < sp.Ring.Stages; st++ {
			s.addBar(nm(r, "full", st), sp.Ring.FullInit, m.CTAsPerTile*sp.Ring.StageBytes)
			s.addBar(nm(r, "empty", st), sp.Ring.EmptyInit, 0)
			s.addBuf(nm(r, "stage", st), sp.Ring.StageBytes, 1)
		}
		for b := 0; b < m.AccStages; b++ {
			s.addBar(nm(r, "tfull", b), m.TFullInit, 0)
			s.addBar(nm(r, "tempty", b), m.TEmptyInit, 0)
			s.addBuf(nm(r, "tmem", b), 0, 1)
		}
		for st := 0; st < sp.Epi.Stages; st++ {
			s.addBar(nm(r, "efull", st), sp.Epi.FullInit, epiSize)
			s.addBar(nm(r, "eempty", st), sp.Epi.EmptyInit, 0)
			s.addBuf(nm(r, "slot", st), epiSize, epiReaders)
		}
		if m.CLC {
			// Every role of the CTA reads each response once.
			readers := 3
			if len(sp.Epi.Loads) > 0 {
				readers++
			}
			if g.pairRank(r) == 0 {
				readers++
			}
			for st := 0; st < m.CLCStages; st++ {
				s.addBar(nm(r, "clcfull", st), m.CLCFullInit, clcResponseBytes)
				s.addBar(nm(r, "clcempty", st), m.CLCEmptyInit, 0)
				s.addBuf(nm(r, "clcresp", st), clcResponseBytes, readers)
			}
		}
	}
}

// sequence is the tile ids CTA r runs, in order (ids past the last tile
// included: the roles skip them but still read the CLC response that
// follows).
func (g *geom100) sequence(r int) []int {
	p := g.m.CTAsPerTile
	block := g.cluster*g.ctas + r
	if g.m.CLC {
		seq := []int{block / p}
		for _, x := range g.sc.Steals {
			seq = append(seq, (x*g.ctas+r)/p)
		}
		return seq
	}
	var seq []int
	for t := block / p; t < g.tiles; t += g.sc.Grid * g.ctas / p {
		seq = append(seq, t)
	}
	return seq
}

func (g *geom100) finalSync() []op {
	return []op{{kind: opSyncArrive, sync: "teardown"}, {kind: opSyncWait, sync: "teardown"}}
}

// clcRead is sw_next_tile's read of response ci by n threads of CTA r:
// wait for it, read it, and tell cluster CTA 0 the slot is free.
func (g *geom100) clcRead(s *sim, r, ci, n int) []op {
	if !g.m.CLC {
		return nil
	}
	st, u := ci%g.m.CLCStages, ci/g.m.CLCStages
	resp := s.buf(nm(r, "clcresp", st))
	return []op{
		{kind: opWait, bar: s.bar(nm(r, "clcfull", st)), want: u + 1, parity: g.m.CLCFullParity.of(ci), wk: waitTrap},
		{kind: opAcquire, bufs: []int{resp}, tag: u, mode: holdRead},
		{kind: opRelease, buf: resp},
		{kind: opArrive, bars: []int{s.bar(nm(0, "clcempty", st))}, n: n, tag: u},
	}
}

func (g *geom100) producer(s *sim, r int, seq []int) []op {
	sp := g.sp
	var ops []op
	it := 0
	for ci, t := range seq {
		for kb := 0; t < g.tiles && kb < g.kblocks; kb++ {
			st, u := it%sp.Ring.Stages, it/sp.Ring.Stages
			ops = append(ops, op{kind: opWait, bar: s.bar(nm(r, "empty", st)), want: u, parity: sp.Ring.EmptyParity.of(it), wk: waitTrap})
			full := s.bar(nm(g.leader(r), "full", st))
			if g.pairRank(r) == 0 {
				ops = append(ops, op{kind: opExpectTx, bar: full, n: sp.Ring.TxBytes, tag: u})
			}
			for _, l := range sp.Ring.Loads {
				ops = append(ops, op{kind: opLoad, targets: []target{{full, s.buf(nm(r, "stage", st))}}, n: l.Bytes, tag: u})
			}
			it++
		}
		ops = append(ops, g.clcRead(s, r, ci, 1)...)
	}
	if g.m.ProducerDrain {
		for i := 0; i < sp.Ring.Stages; i, it = i+1, it+1 {
			st := it % sp.Ring.Stages
			ops = append(ops, op{kind: opWait, bar: s.bar(nm(r, "empty", st)), want: it / sp.Ring.Stages, parity: sp.Ring.EmptyParity.of(it), wk: waitTrap})
		}
	}
	return append(ops, g.finalSync()...)
}

func (g *geom100) mma(s *sim, r int, seq []int) []op {
	sp, m := g.sp, g.m
	var ops []op
	it, acc := 0, 0
	var commitTo []int
	for ci, t := range seq {
		if t < g.tiles {
			b, u := acc%m.AccStages, acc/m.AccStages
			var tmem, tfull []int
			for _, x := range g.pair(r) {
				tmem = append(tmem, s.buf(nm(x, "tmem", b)))
			}
			for _, x := range g.commitTargets(r) {
				tfull = append(tfull, s.bar(nm(x, "tfull", b)))
			}
			ops = append(ops,
				op{kind: opWait, bar: s.bar(nm(r, "tempty", b)), want: u, parity: m.TEmptyParity.of(acc), wk: waitTrap},
				op{kind: opWriteBegin, bufs: tmem, tag: u})
			for kb := 0; kb < g.kblocks; kb++ {
				st, su := it%sp.Ring.Stages, it/sp.Ring.Stages
				var stages []int
				for _, x := range g.pair(r) {
					stages = append(stages, s.buf(nm(x, "stage", st)))
				}
				commitTo = commitTo[:0]
				for _, x := range g.commitTargets(r) {
					commitTo = append(commitTo, s.bar(nm(x, "empty", st)))
				}
				ops = append(ops,
					op{kind: opWait, bar: s.bar(nm(r, "full", st)), want: su + 1, parity: sp.Ring.FullParity.of(it), wk: waitTrap},
					op{kind: opAcquire, bufs: stages, tag: su, mode: holdRead},
					op{kind: opCommit, bars: append([]int(nil), commitTo...), bufs: stages, tag: su})
				it++
			}
			ops = append(ops, op{kind: opCommit, bars: tfull, ends: tmem, tag: u})
			acc++
		}
		ops = append(ops, g.clcRead(s, r, ci, 1)...)
	}
	return append(ops, g.finalSync()...)
}

// rows is the first row of tile t that CTA r holds, and its first column.
func (g *geom100) rows(t, r int) (r0, n0 int) {
	if g.gt != nil {
		return g.gt[t].Row0, g.gt[t].TN * g.sp.TileN
	}
	tm, tn := rasterTile(g.sp.Raster, t, g.tilesM, g.tilesN, g.sp.SwizzleGroup)
	return tm*g.sp.TileM + g.pairRank(r)*g.sp.SubM, tn * g.sp.TileN
}

// ragged: tile t's sub-tiles in CTA r are not all SubM rows their
// expert's (grouped walk), so they are stored row by row.
func (g *geom100) ragged(t, r int) bool {
	r0, _ := g.rows(t, r)
	return g.gt != nil && r0+g.sp.SubM > g.gt[t].RowEnd
}

// valid is the number of tile t's sub-tiles that CTA r holds inside the
// tensor (0 for a pair's CTA past the last row).
func (g *geom100) valid(t, r int) int {
	r0, n0 := g.rows(t, r)
	if r0 >= g.sc.M {
		return 0
	}
	return min(g.sp.TileN/g.sp.SubN, ceilDiv(g.sc.N-n0, g.sp.SubN))
}

func (g *geom100) epiLoader(s *sim, r int, seq []int) []op {
	sp := g.sp
	var ops []op
	e := 0
	for ci, t := range seq {
		for nb := 0; t < g.tiles && nb < g.valid(t, r); nb++ {
			st, u := e%sp.Epi.Stages, e/sp.Epi.Stages
			full, slot := s.bar(nm(r, "efull", st)), s.buf(nm(r, "slot", st))
			ops = append(ops,
				op{kind: opWait, bar: s.bar(nm(r, "eempty", st)), want: u, parity: sp.Epi.EmptyParity.of(e), wk: waitTrap},
				op{kind: opExpectTx, bar: full, n: sp.Epi.TxBytes, tag: u})
			for _, b := range sp.Epi.Loads {
				ops = append(ops, op{kind: opLoad, targets: []target{{full, slot}}, n: b, tag: u})
			}
			e++
		}
		ops = append(ops, g.clcRead(s, r, ci, 1)...)
	}
	return append(ops, g.finalSync()...)
}

func (g *geom100) scheduler(s *sim, r int) []op {
	m := g.m
	var ops []op
	for ci := 0; ci <= len(g.sc.Steals); ci++ {
		st, u := ci%m.CLCStages, ci/m.CLCStages
		full := s.bar(nm(r, "clcfull", st))
		if r == 0 {
			ops = append(ops, op{kind: opWait, bar: s.bar(nm(0, "clcempty", st)), want: u, parity: m.CLCEmptyParity.of(ci), wk: waitTrap})
		}
		ops = append(ops, op{kind: opExpectTx, bar: full, n: m.CLCTxBytes, tag: u})
		if r == 0 {
			var ts []target
			for x := 0; x < g.ctas; x++ {
				ts = append(ts, target{s.bar(nm(x, "clcfull", st)), s.buf(nm(x, "clcresp", st))})
			}
			ops = append(ops, op{kind: opCancel, targets: ts, n: clcResponseBytes, tag: u})
		}
		ops = append(ops, g.clcRead(s, r, ci, 1)...)
	}
	return append(ops, g.finalSync()...)
}

func (g *geom100) epilogue(s *sim, r int, seq []int) []op {
	m := g.m
	var ops []op
	acc, e := 0, 0
	for ci, t := range seq {
		if t < g.tiles {
			b, u := acc%m.AccStages, acc/m.AccStages
			tmem := s.buf(nm(r, "tmem", b))
			ops = append(ops,
				op{kind: opWait, bar: s.bar(nm(r, "tfull", b)), want: u + 1, parity: m.TFullParity.of(acc), wk: waitTrap},
				op{kind: opAcquire, bufs: []int{tmem}, tag: u, mode: holdRead})
			acc++
			free := []op{
				{kind: opRelease, buf: tmem},
				{kind: opArrive, bars: []int{s.bar(nm(g.leader(r), "tempty", b))}, n: m.EpiThreads, tag: u},
			}
			nvalid := g.valid(t, r)
			if nvalid == 0 {
				ops = append(ops, free...)
			}
			for nb := 0; nb < nvalid; nb++ {
				if nb == nvalid-1 {
					// The last TMEM read of the tile (tcgen05.wait::ld done).
					ops = append(ops, free...)
				}
				ops = append(ops, g.subtileEpilogue(s, r, e, g.ragged(t, r))...)
				e++
			}
		}
		ops = append(ops, g.clcRead(s, r, ci, m.EpiThreads)...)
	}
	ops = append(ops, op{kind: opWaitRead, n: 0})
	return append(ops, g.finalSync()...)
}

// subtileEpilogue is the smem/TMA part of sub-tile e; ragged: an
// expert's ragged last sub-tile (grouped walk), stored from registers.
func (g *geom100) subtileEpilogue(s *sim, r, e int, ragged bool) []op {
	sp := g.sp
	st, u := e%sp.Epi.Stages, e/sp.Epi.Stages
	slot := s.buf(nm(r, "slot", st))
	if len(sp.Epi.Loads) == 0 {
		ops := []op{{kind: opWaitRead, n: sp.Epi.StoreLag}}
		if ragged {
			// Each thread stores its row from its registers, the slot
			// untouched: no bulk group, so the next sub-tile's
			// wait_group.read StoreLag would count one group too few; wait
			// for them here.
			return append(ops, op{kind: opWaitRead, n: g.m.RaggedWaitRead})
		}
		return append(ops, op{kind: opWrite, buf: slot, tag: u}, op{kind: opStore, buf: slot, tag: u})
	}
	wait := op{kind: opWait, bar: s.bar(nm(r, "efull", st)), want: u + 1, parity: sp.Epi.FullParity.of(e), wk: waitTrap}
	empty := []int{s.bar(nm(r, "eempty", st))}
	if ragged {
		// Each thread stores its row from its registers: the warpgroup
		// reads the loaded slot, rewrites nothing, and no TMA store reads
		// it after them.
		return []op{wait,
			{kind: opAcquire, bufs: []int{slot}, tag: u, mode: holdLast},
			{kind: opRelease, buf: slot},
			{kind: opArrive, bars: empty, n: g.m.RaggedArrivals, tag: u},
		}
	}
	return []op{wait,
		{kind: opAcquire, bufs: []int{slot}, tag: u, mode: holdModify},
		{kind: opRelease, buf: slot},
		{kind: opStore, buf: slot, tag: u},
		{kind: opWaitRead, n: 0},
		{kind: opArrive, bars: empty, n: sp.Epi.ReleaseArrivals, tag: u},
	}
}
