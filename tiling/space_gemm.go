package tiling

// spaceCand is one candidate of a kind's own sm_90a list
// (KindSpec.sm90Cands, taken by ownSpace): a tile, its cluster, scheduler
// and tile order; every one at its deepest operand ring.
type spaceCand struct {
	s      Schedule
	m, n   int
	cm, cn int
	sk     bool
	raster Raster
	group  int
	// k is the tile's K depth (0: 64); rings tries every operand-ring
	// depth that fits (ringDepths) instead of the deepest only.
	k     int
	rings bool
	// deep takes the deepest ring that fits even past spaceStages' last
	// (a 64-row tile's A stage is small: 64x128 fits 8 stages), for the
	// decode-sized tiles that stream the weight (as decodeSK's).
	deep bool
}

// gemmCands is the sm_90a gemm tuning space. It is kept to about twenty
// so that `tune --kernel gemm --suite` (the training step's GEMMs at every
// suite shape, ~80 problems) fits one device call: what measured on the
// H200 (docs/PERFORMANCE.md#gemm-epilogue, #stream-k, #dispatch-plan):
// cooperative 128x256 and 256x128 win the large shapes, with 2-CTA
// clusters +1-3% at some; ping-pong 128x128 and stream-K win where the
// last wave is short (2048,7168,4096); 128x176/240 fill other waves (K-major
// B only); 64-row ping-pong tiles only at decode-sized M (the prune model
// drops them elsewhere), also under stream-K at their deepest ring and with
// TileK 128 (decode: docs/PERFORMANCE.md#decode); raster n and group 16
// are ±2%, kept for 128x256 only. Left out since measured slower everywhere: the whole-tile
// epilogue staging (-2 to -7%) and the shallower ring of each tile.
var gemmCands = []spaceCand{
	{s: Cooperative, m: 128, n: 256, cm: 1, cn: 1},
	{s: Cooperative, m: 128, n: 256, cm: 1, cn: 1, raster: RasterN},
	{s: Cooperative, m: 128, n: 256, cm: 1, cn: 1, group: 16},
	{s: Cooperative, m: 128, n: 256, cm: 2, cn: 1},
	{s: Cooperative, m: 128, n: 256, cm: 1, cn: 2},
	{s: Cooperative, m: 128, n: 256, cm: 1, cn: 1, sk: true},
	{s: Cooperative, m: 256, n: 128, cm: 1, cn: 1},
	{s: Cooperative, m: 256, n: 128, cm: 2, cn: 1},
	{s: Cooperative, m: 256, n: 128, cm: 1, cn: 2},
	{s: Cooperative, m: 128, n: 192, cm: 1, cn: 1},
	{s: Cooperative, m: 128, n: 192, cm: 1, cn: 1, sk: true},
	{s: Cooperative, m: 128, n: 176, cm: 1, cn: 1},
	{s: Cooperative, m: 128, n: 240, cm: 1, cn: 1},
	{s: PingPong, m: 128, n: 128, cm: 1, cn: 1},
	{s: PingPong, m: 128, n: 128, cm: 1, cn: 2},
	{s: PingPong, m: 128, n: 128, cm: 1, cn: 1, sk: true},
	{s: PingPong, m: 64, n: 128, cm: 1, cn: 1},
	{s: PingPong, m: 64, n: 256, cm: 1, cn: 1},
	{s: PingPong, m: 64, n: 128, cm: 1, cn: 1, sk: true, deep: true},
	{s: PingPong, m: 64, n: 256, cm: 1, cn: 1, sk: true, deep: true},
	{s: PingPong, m: 64, n: 128, cm: 1, cn: 1, sk: true, deep: true, k: 128},
}

// ownSpace is the sm_90a space of a kind with its own list (gemm:
// gemmCands) on base (kind, arch, dtype): cands at their deepest rings,
// default majors. The caller drops those that do not validate.
func ownSpace(base Config, cands []spaceCand) []Config {
	var out []Config
	for _, g := range cands {
		c := base
		c.Schedule, c.TileM, c.TileN, c.ClusterM, c.ClusterN = g.s, g.m, g.n, g.cm, g.cn
		c.Raster, c.SwizzleGroup = g.raster, g.group
		if g.sk {
			c.Scheduler = StreamKScheduler
		}
		if g.k != 0 {
			c.TileK = g.k
		}
		c = c.WithDefaults()
		rings := ringDepths(c, g.rings)
		if g.deep {
			rings = []int{c.MaxStages()}
		}
		for _, st := range rings {
			c.Stages = st
			out = append(out, c)
		}
	}
	return out
}

// WithMajors is cs with operand majors a and b on every config, less those
// that are then not valid or not implemented (tiles whose width is not a
// multiple of 64 need a K-major B; clusters share no MN-major operand
// where Implemented says so), in cs's order. A gemm tune of a step GEMM
// runs its space in the majors that GEMM's storage gives.
func WithMajors(cs []Config, a, b Major) []Config {
	var out []Config
	for _, c := range cs {
		c.MajorA, c.MajorB = a, b
		if legality(c) == nil {
			out = append(out, c)
		}
	}
	return out
}
