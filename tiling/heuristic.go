package tiling

import "fmt"

// b200HalfSMs is half the SM count of a B200 (148 SMs): a 2-CTA tile
// occupies a CTA pair, so this many 256x256 tiles fill the machine once.
const b200HalfSMs = 74

// The sm_90a bwd_dswiglu heuristic (no StoreOut) takes ping-pong 128x192
// over 128x128: a 128x192 tile brings 20 operand bytes per output element
// into its SM at K=768 (K*2*(1/128+1/192)) instead of 24, so its mainloop
// alone runs faster, and the kernel was faster at every shape measured.
// With out stored too (training) 128x192 is slower: its ring drops to 3
// stages beside out's buffers. Measurements: docs/PERFORMANCE.md#tile-128x192
// and #store-out-tile.
//
// wideTileGainPct is the per-output speed of the wide tile over 128x128
// that the heuristic assumes (the measured 3-10%, low end) when it weighs
// the wide tile's fewer, larger tiles against the SMs they leave idle in
// the last wave: the wide tile wins unless its waves x 192 columns exceed
// 128x128's waves x 128 by more than this.
const (
	wideTileN       = 192
	wideTileGainPct = 6
)

// h200SMs is the SM count of an H200 (and H100 SXM): one persistent CTA
// per SM, two tiles in flight each under ping-pong.
const h200SMs = 132

// l2KeepMaxWeightBytes bounds W_down (I*K elements of the operand type) for which the
// sm_90a bwd_dswiglu ping-pong heuristic walks its tiles along N in small
// groups with the operands' L2 evict_last policy (L2KeepOperands): each dy
// tile row is then reused across all of I while W_down stays in L2, and
// the streamed de cannot evict either. It was faster at every shape
// measured with W_down up to 14 MB and slower at 22 MB, where W_down no
// longer stays in L2; group 4 is best for 128x192, group 2 for 128x128
// (docs/PERFORMANCE.md#l2-keep-operands).
const l2KeepMaxWeightBytes = 16 << 20

// l2KeepGroup is the swizzle group of that order, per tile width.
func l2KeepGroup(tileN int) int {
	if tileN == wideTileN {
		return 4
	}
	return 2
}

// bwdWideTile reports whether the sm_90a bwd_dswiglu heuristic takes the
// 128x192 ping-pong tile at shape s (see wideTileGainPct): its waves of
// tiles over the H200's SMs, weighed by tile width, against 128x128's.
func bwdWideTile(s Shape) bool {
	waves := func(n int) int { return ceilDiv(ceilDiv(s.M, 128)*ceilDiv(s.I, n), h200SMs) }
	return waves(wideTileN)*wideTileN*100 <= waves(128)*128*(100+wideTileGainPct)
}

// gateUpInferenceGroup is the swizzle group of the sm_90a fwd_gateup
// heuristic when it stores out only (inference): tiles walked along N in
// groups of 4 columns, 2-3% faster than the default order (m, group 8) on
// the H200. With de stored too (training) the default order is faster, so
// HeuristicStoreOut keeps it (docs/PERFORMANCE.md#fwd-gateup-order).
const gateUpInferenceGroup = 4

// Heuristic returns a sound default config for kernel k on arch a and type
// d at shape s, with no tuning: the measured table's winner at the nearest
// tuned shape, or the rules of RuleHeuristic (HeuristicWhy says which and
// why). The result validates and is implemented.
func Heuristic(k Kernel, a Arch, d DType, s Shape) (Config, error) {
	c, _, err := HeuristicWhy(k, a, d, s, false)
	return c, err
}

// HeuristicStoreOut is Heuristic for a config that also stores its second
// output (StoreOut: bwd_dswiglu's out, fwd_gateup's de), with the operand
// ring as deep as fits beside the second output's buffers (the rules keep
// bwd_dswiglu at ping-pong 128x128 there: 128x192 measured slower with out).
func HeuristicStoreOut(k Kernel, a Arch, d DType, s Shape) (Config, error) {
	c, _, err := HeuristicWhy(k, a, d, s, true)
	return c, err
}

// HeuristicWhy is the heuristic's config for kernel k on arch a, type d,
// shape s and mode storeOut (Heuristic, HeuristicStoreOut), and why it
// was chosen. Where the measured table (Measured) has winners of the
// kind, arch and mode, it takes the winner at the tuned shape nearest to
// s in log space (MeasuredChoice) when that shape is within
// MaxMeasuredDistance; elsewhere (far from every tuned shape, sm_100a,
// which no GPU here runs, and kinds not yet tuned) the rules below
// (RuleHeuristic).
func HeuristicWhy(k Kernel, a Arch, d DType, s Shape, storeOut bool) (Config, string, error) {
	if k == PlainGEMM() && !storeOut {
		// A gemm's winner depends on its majors: K-major both here
		// (HeuristicGemm takes others).
		return HeuristicGemm(a, d, s, KMajor, KMajor)
	}
	if err := s.Validate(); err != nil {
		return Config{}, "", fmt.Errorf("tiling: heuristic: %w", err)
	}
	t, err := Measured()
	if err != nil {
		return Config{}, "", fmt.Errorf("tiling: heuristic: %w", err)
	}
	return t.heuristicWhy(k, a, d, s, storeOut)
}

// heuristicWhy is HeuristicWhy on table t.
func (t *MeasuredTable) heuristicWhy(k Kernel, a Arch, d DType, s Shape, storeOut bool) (Config, string, error) {
	m, ok := t.nearest(k, a, d, s, storeOut)
	why := "rules: no tuned shape of this kind, arch and mode in the measured table"
	if ok && m.Distance <= MaxMeasuredDistance {
		c, err := m.config(d)
		if err == nil {
			return c, m.Why(), nil
		}
		why = fmt.Sprintf("rules: the measured winner %s does not apply here (%v)", m.Row.Config, err)
	} else if ok {
		r := m.Row.Shape
		why = fmt.Sprintf("rules: the nearest tuned shape, %d,%d,%d, is %.2f away in log space (beyond %.2f)", r.M, r.K, r.I, m.Distance, MaxMeasuredDistance)
	}
	c, err := RuleHeuristic(k, a, d, s, storeOut)
	return c, why, err
}

// RuleHeuristic is the heuristic's rule-based choice, taken where the
// measured table has no rows (see HeuristicWhy); it validates s itself.
// The rules:
//
// sm_90a: pingpong 128x128x64, the deepest operand ring that fits, cluster
// 1x1, raster m, group 8, epilogue 64x64x2. PingPong overlaps one
// consumer's epilogue (which for bwd_dswiglu reads two de tiles and writes
// two grad_de tiles, so it is long) with the other's mainloop. bwd_dswiglu
// without StoreOut takes a 128x192 tile (192 accumulator registers per
// consumer thread) unless the shape leaves too many SMs idle with it
// (wideTileGainPct). gemm and fwd_down take cooperative 128x256.
// fwd_gateup without StoreOut walks its tiles along N in groups of 4
// (gateUpInferenceGroup). bwd_dswiglu walks them along N in groups of 4
// (128x192) or 2 (128x128) with the operands' L2 evict_last policy when
// W_down takes at most 16 MB (l2KeepMaxWeightBytes).
//
// sm_100a: 2cta 256x256 on a 2x1 cluster when M >= 4096 and there are at
// least 74 such tiles (half a B200's SMs, one per CTA pair): each CTA then
// loads only half of B, halving B's shared-memory and L2 traffic per FLOP.
// Smaller problems take 1cta 128x256, which has twice as many tiles to
// spread over the SMs. Static scheduler: CLC is not yet measured.
func RuleHeuristic(k Kernel, a Arch, d DType, s Shape, storeOut bool) (Config, error) {
	if err := s.Validate(); err != nil {
		return Config{}, fmt.Errorf("tiling: heuristic: %w", err)
	}
	return ruleConfig(k, a, d, storeOut, factsOf(s, d))
}

// RuleFacts are all the rules of RuleHeuristic ask of a shape: with them
// (and kind, arch, dtype and mode) the rules' config is fixed. The
// Python runtime's selection (SelectionTable) evaluates them itself.
type RuleFacts struct {
	// Wide: bwdWideTile (sm_90a bwd_dswiglu without StoreOut).
	Wide bool `json:"wide"`
	// L2Keep: W_down (I*K 16-bit elements) takes at most
	// l2KeepMaxWeightBytes (sm_90a bwd_dswiglu).
	L2Keep bool `json:"l2_keep"`
	// TwoCTA: M >= 4096 with at least b200HalfSMs 256x256 tiles (sm_100a).
	TwoCTA bool `json:"two_cta"`
}

// allRuleFacts is every combination of RuleFacts, Wide the lowest bit.
func allRuleFacts() []RuleFacts {
	var fs []RuleFacts
	for i := range 8 {
		fs = append(fs, RuleFacts{Wide: i&1 != 0, L2Keep: i&2 != 0, TwoCTA: i&4 != 0})
	}
	return fs
}

// factsOf is the rules' facts of shape s in dtype d.
func factsOf(s Shape, d DType) RuleFacts {
	return RuleFacts{
		Wide:   bwdWideTile(s),
		L2Keep: s.I*s.K*d.Size() <= l2KeepMaxWeightBytes,
		TwoCTA: s.M >= 4096 && ceilDiv(s.M, 256)*ceilDiv(s.I, 256) >= b200HalfSMs,
	}
}

// ruleConfig is RuleHeuristic's config for facts f.
func ruleConfig(k Kernel, a Arch, d DType, storeOut bool, f RuleFacts) (Config, error) {
	c := Config{Kernel: k, Arch: a, DType: d, TileK: 64, ClusterM: 1, ClusterN: 1, StoreOut: storeOut}
	switch a {
	case ArchSM90a:
		c.Schedule, c.TileM, c.TileN = PingPong, 128, 128
		if rule := spec(k).sm90Rule; rule != nil {
			c = rule(c, f)
		}
	case ArchSM100a:
		// The grouped walk runs one CTA per tile (groupedSM100).
		if f.TwoCTA && !k.Grouped() {
			c.Schedule, c.TileM, c.TileN, c.ClusterM = TwoCTA, 256, 256, 2
		} else {
			c.Schedule, c.TileM, c.TileN = OneCTA, 128, 256
		}
	}
	if spec(k).ExpertsAlongK {
		// W_down [E,K,I] is the GEMM's B stored [K,N], the only major
		// groupedBwdImplemented takes (both arches).
		c.MajorB = MNMajor
	}
	c = c.WithDefaults()
	c.Stages = c.MaxStages()
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("tiling: heuristic for %s %s %s: %w", k, a, d, err)
	}
	return c, nil
}

// cooperativeWideRule is the sm_90a rule of the kinds with a store-only
// epilogue (KindSpec.sm90Rule): they gain little from ping-pong overlap,
// and the 128x256 cooperative tile (m64n256 wgmma per consumer) reads the
// least shared memory per FLOP and won the H200 sweep at 8192^3
// (docs/PERFORMANCE.md#gemm-tile).
func cooperativeWideRule(c Config, _ RuleFacts) Config {
	c.Schedule, c.TileM, c.TileN = Cooperative, 128, 256
	return c
}

// gateUpRule is fwd_gateup's sm_90a rule: inference walks the tiles along
// N in groups of gateUpInferenceGroup; training keeps the default order.
func gateUpRule(c Config, _ RuleFacts) Config {
	if !c.StoreOut {
		c.Raster, c.SwizzleGroup = RasterN, gateUpInferenceGroup
	}
	return c
}

// bwdRule is bwd_dswiglu's sm_90a rule: the 128x192 tile without StoreOut
// where f.Wide (bwdWideTile), and the L2-kept operands in small groups
// along N where f.L2Keep (l2KeepMaxWeightBytes).
func bwdRule(c Config, f RuleFacts) Config {
	if !c.StoreOut && f.Wide {
		c.TileN = wideTileN
	}
	if f.L2Keep {
		c.Raster, c.SwizzleGroup, c.L2KeepOperands = RasterN, l2KeepGroup(c.TileN), true
	}
	return c
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
