package tiling

// Stream-K work decomposition. The sm_90a template's sw_sk_work
// (templates/cuda/sched_streamk_sm90a.cuh.tmpl) computes the same function
// on the device, and every role of a CTA (producer, epilogue-operand
// loaders, both consumers) calls it, so they agree on one work list; this
// is the reference the tests check it against, and the owner of the
// workspace layout (StreamKWorkspace).

// StreamKMinKBlocks is the fewest k-blocks a stream-K CTA is given: a
// split costs a partial accumulator written and read back through L2
// (TileM*TileN*4 bytes, a few k-blocks' time), so the split phase uses at
// most S/StreamKMinKBlocks CTAs for S k-blocks.
const StreamKMinKBlocks = 8

// StreamKMaxCTAs and StreamKMaxKBlocks bound a stream-K launch (grid, and
// k-blocks per tile) so that the kernel's work list fits 32-bit unsigned
// arithmetic: b*units < StreamKMaxCTAs^2 * StreamKMaxKBlocks < 2^32.
const (
	StreamKMaxCTAs    = 256
	StreamKMaxKBlocks = 65535
)

// StreamKFlagBytes is the flag area of one CTA in the workspace: one u32
// per consumer part (a cooperative tile's two row halves; a ping-pong
// tile's one whole tile uses part 0). A flag holds the epoch of the launch
// whose partial it published.
const StreamKFlagBytes = 8

// StreamKHeaderBytes is the workspace header after the flags: the u32
// epoch of the last launch that finished on the workspace (0: none, or the
// epochs wrapped), then the u32 count of consumer warpgroups that have
// finished the running launch. A launch's epoch is the header's plus one,
// in [1, StreamKMaxEpoch]: never 0, the value of a zeroed flag.
const StreamKHeaderBytes = 8

// StreamKMaxEpoch is the last epoch before the epochs wrap: the last
// consumer to finish that launch zeroes the flags and the header, so no
// flag ever holds the epoch of a later launch.
const StreamKMaxEpoch = 1<<32 - 1

// StreamKPlan is the stream-K decomposition of one launch: Tiles output
// tiles of KBlocks k-blocks each on Grid CTAs. Full waves of whole tiles
// first (tile b + w*Grid for w < Full), then the last SKTiles tiles' SKUnits
// = SKTiles*KBlocks k-blocks cut into SKCTAs contiguous ranges, CTA b
// taking [b*SKUnits/SKCTAs, (b+1)*SKUnits/SKCTAs) of them.
type StreamKPlan struct {
	Tiles, KBlocks, Grid int
	Full, SKTiles        int
	SKUnits, SKCTAs      int
}

// StreamKRole is what a work item does with its accumulator.
type StreamKRole int

// The roles of a work item.
const (
	// SKWhole: the item is a whole tile; it runs the epilogue.
	SKWhole StreamKRole = iota
	// SKPartial: the item is the head (or a middle part) of a split tile;
	// it stores its partial sums in its CTA's workspace slot and releases
	// its flag.
	SKPartial
	// SKOwner: the item holds the split tile's last k-block; it waits for
	// the other parts' flags, adds their partials in CTA order, and runs
	// the epilogue.
	SKOwner
)

// StreamKWork is one item of a CTA's work list: k-blocks [KB0, KB1) of
// output tile Tile. Before is the k-blocks of the CTA's items before it
// (the operand ring's position where the item starts).
type StreamKWork struct {
	Tile, KB0, KB1, Before int
	Role                   StreamKRole
}

// NewStreamKPlan decomposes tiles x kblocks on grid CTAs (all positive).
func NewStreamKPlan(tiles, kblocks, grid int) StreamKPlan {
	p := StreamKPlan{Tiles: tiles, KBlocks: kblocks, Grid: grid}
	p.Full = tiles / grid
	p.SKTiles = tiles - p.Full*grid
	p.SKUnits = p.SKTiles * kblocks
	p.SKCTAs = min(grid, max(1, p.SKUnits/StreamKMinKBlocks))
	return p
}

// unitStart is the first stream-K k-block of CTA b (b <= SKCTAs).
func (p StreamKPlan) unitStart(b int) int { return b * p.SKUnits / p.SKCTAs }

// CTAOf is the CTA whose stream-K range holds unit u: the largest b with
// unitStart(b) <= u.
func (p StreamKPlan) CTAOf(u int) int { return ((u+1)*p.SKCTAs - 1) / p.SKUnits }

// Items is how many work items CTA b has.
func (p StreamKPlan) Items(b int) int {
	n := p.Full
	if b < p.SKCTAs && p.SKUnits > 0 {
		u0, u1 := p.unitStart(b), p.unitStart(b+1)
		n += (u1-1)/p.KBlocks - u0/p.KBlocks + 1
	}
	return n
}

// Work is item j of CTA b's list, ok false past its end. The stream-K
// items walk the CTA's range from its top: the split tile whose head the
// CTA holds comes first (its partial is released early), the tile whose
// tail it owns comes last (the other parts are done by then).
func (p StreamKPlan) Work(b, j int) (StreamKWork, bool) {
	if j < 0 || b < 0 || b >= p.Grid {
		return StreamKWork{}, false
	}
	if j < p.Full {
		return StreamKWork{Tile: b + j*p.Grid, KB0: 0, KB1: p.KBlocks, Before: j * p.KBlocks, Role: SKWhole}, true
	}
	if b >= p.SKCTAs || p.SKUnits == 0 {
		return StreamKWork{}, false
	}
	u0, u1 := p.unitStart(b), p.unitStart(b+1)
	st := (u1-1)/p.KBlocks - (j - p.Full)
	if st < u0/p.KBlocks {
		return StreamKWork{}, false
	}
	lo, hi := max(u0, st*p.KBlocks), min(u1, (st+1)*p.KBlocks)
	w := StreamKWork{Tile: p.Full*p.Grid + st, KB0: lo - st*p.KBlocks, KB1: hi - st*p.KBlocks,
		Before: p.Full*p.KBlocks + u1 - hi}
	switch {
	case w.KB0 == 0 && w.KB1 == p.KBlocks:
		w.Role = SKWhole
	case w.KB1 == p.KBlocks:
		w.Role = SKOwner
	default:
		w.Role = SKPartial
	}
	return w, true
}

// Contributors is the CTAs whose partials the owner of stream-K tile st
// (0-based among the split tiles) adds, first..last inclusive, in the
// order it adds them; first > last when the tile is not split.
func (p StreamKPlan) Contributors(st int) (first, last int) {
	return p.CTAOf(st * p.KBlocks), p.CTAOf((st+1)*p.KBlocks-1) - 1
}

// StreamKWorkspace is the byte layout of a stream-K kernel's workspace for
// a grid of grid CTAs and an accumulator tile of tileM x tileN fp32: the
// flags (StreamKFlagBytes per CTA) and the header (StreamKHeaderBytes),
// zeroed once when the workspace is allocated and kept by the kernel from
// then on, padded to 128 bytes (flagBytes), then one partial slot per CTA.
func StreamKWorkspace(grid, tileM, tileN int) (flagBytes, slotBytes, total int) {
	flagBytes = (grid*StreamKFlagBytes + StreamKHeaderBytes + 127) / 128 * 128
	slotBytes = tileM * tileN * 4
	return flagBytes, slotBytes, flagBytes + grid*slotBytes
}
