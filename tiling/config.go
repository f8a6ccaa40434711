// Package tiling holds the kernel configuration space of swigen: the Config
// type, the per-architecture hardware limits, validation, the enumerated
// tuning Space, procedural names and the no-tune Heuristic.
package tiling

// Arch is a compilation target.
type Arch string

// The targets. sm_90a runs on the H100/H200; sm_100a (B200/B300) is
// compile-verified only.
const (
	ArchSM90a  Arch = "sm_90a"
	ArchSM100a Arch = "sm_100a"
)

// Schedule is how consumer warps share tiles.
//
// sm_90a: Cooperative (both consumer warpgroups split one tile by rows) or
// PingPong (each consumer warpgroup owns whole tiles, alternating, so one
// warpgroup's epilogue overlaps the other's mainloop).
// sm_100a: OneCTA (tcgen05 cta_group::1, tile M 64/128) or TwoCTA
// (cta_group::2, tile M 256 over a 2x1 cluster).
type Schedule string

// The schedules.
const (
	Cooperative Schedule = "cooperative"
	PingPong    Schedule = "pingpong"
	// Overlap (sm_90a bwd_dswiglu without StoreOut): cooperative tiles (each
	// consumer warpgroup takes half the rows of every tile); each consumer
	// keeps the finished tile's dout as bf16x2 in registers and runs its
	// dSwiGLU epilogue in slices between the next tile's wgmma issues. The
	// producer warpgroup loads the operands and de and stores grad_de, as
	// for the other schedules. The heuristic takes it (128x192) for K >=
	// 2048, where it beats ping-pong on the H200.
	Overlap Schedule = "overlap"
	OneCTA  Schedule = "1cta"
	TwoCTA  Schedule = "2cta"
)

// Scheduler is how persistent CTAs obtain their tiles.
type Scheduler string

// The tile schedulers. CLC (cluster launch control) exists on sm_100a only.
// Stream-K (StreamK) runs whole tiles in full waves, then splits the
// remaining tiles' k-blocks over the CTAs, summing the split tiles'
// partial accumulators in a workspace before the kind's epilogue.
const (
	StaticScheduler  Scheduler = "static"
	CLCScheduler     Scheduler = "clc"
	StreamKScheduler Scheduler = "streamk"
	// GroupedScheduler walks the tiles of every expert of a grouped (MoE)
	// kind; it is the only scheduler of those kinds, implied by the kind
	// (no name suffix).
	GroupedScheduler Scheduler = "grouped"
)

// Raster is the order in which the tile scheduler walks output tiles: along M
// means consecutive tile ids move down the M dimension first (within a
// swizzle group of SwizzleGroup tile rows/columns).
type Raster string

// The raster orders.
const (
	RasterM Raster = "m"
	RasterN Raster = "n"
)

// Major names the contiguous dimension of a GEMM operand in global memory.
type Major string

// The operand majors. K-major: the reduction dimension is contiguous
// (W_down [I,K] for the seed's dout GEMM). MN-major: the M (for A) or N (for
// B) dimension is contiguous (W_down stored [K,I]).
const (
	KMajor  Major = "k"
	MNMajor Major = "mn"
)

// Config is one point of the kernel configuration space. The zero value is
// not valid; use Heuristic, Space, or fill every field and call Validate.
type Config struct {
	Kernel Kernel
	Arch   Arch
	DType  DType

	// Output tile of one scheduled work unit (CTA tile on sm_90a; the MMA
	// tile of the CTA pair on sm_100a 2-CTA), and the K depth of one
	// pipeline stage.
	TileM, TileN, TileK int
	// Stages is the depth of the TMA -> MMA operand ring in shared memory.
	Stages int
	// Cluster shape (CTAs along M, along N). The operand shared by the
	// cluster is TMA-multicast.
	ClusterM, ClusterN int

	Schedule  Schedule
	Scheduler Scheduler

	Raster Raster
	// SwizzleGroup is the number of tile rows (RasterM) or columns
	// (RasterN) walked together, so a group's operands stay in L2.
	SwizzleGroup int

	// Epilogue sub-tile: the epilogue streams the accumulator tile through
	// shared memory EpiM x EpiN at a time, EpiStages deep.
	EpiM, EpiN, EpiStages int

	// MajorA and MajorB are the majors of the two GEMM operands.
	MajorA, MajorB Major

	// StoreOut makes bwd_dswiglu also write the recomputed forward
	// activation out = left*silu(gate) (so the forward need not save it).
	// For fwd_gateup it means "training": also store de = [left | gate]
	// for the backward (inference leaves it false and writes only out).
	StoreOut bool

	// Residual makes fwd_down add a residual: y = out @ W_down + residual
	// (the residual tile is TMA-loaded in the epilogue). fwd_down only.
	// Left out of the JSON when false, so configs without it keep their
	// manifests and config hashes.
	Residual bool `json:",omitempty"`

	// Score (grouped kinds, name suffix _score) takes a router score per
	// routed row, s [T] fp32: moe_fwd_gateup stores out = s*silu(gate)*left
	// (de stays unscaled); moe_bwd_dswiglu feeds s*dout into the dSwiGLU,
	// stores out = s*h and writes the score's gradient as per-tile row
	// partials. Left out of the JSON when false, so configs without it
	// keep their manifests and config hashes.
	Score bool `json:",omitempty"`

	// FastSigmoid computes sigmoid(g) as 0.5 + 0.5*tanh(g/2) with one
	// tanh.approx (max rel. error 2^-11) instead of ex2 + rcp: half the
	// special-function work in the SwiGLU epilogues, well under the 16-bit
	// output rounding. bwd_dswiglu only.
	FastSigmoid bool `json:",omitempty"`

	// EpiPipe (sm_90a bwd_dswiglu, name suffix _pipe) rounds dout to the
	// element type right after the mainloop, so the accumulators are dead
	// during the epilogue, and loads each epilogue sub-tile's de (its wait
	// and ldmatrix) before the previous sub-tile's math: the epilogue's
	// dependent chain spans two sub-tiles instead of one
	// (docs/PERFORMANCE.md#seed-epilogue-levers).
	EpiPipe bool `json:",omitempty"`

	// SliceFrags (overlap schedule only; 0 otherwise) is the accumulator
	// fragments of the previous tile's epilogue run in one slice between
	// two k-blocks: 16 per 64x64 sub-tile. Small slices pay a fixed cost
	// each, large ones hold up the next k-block's wgmmas (H200, 128x192:
	// 4 is fastest at K=768, 8 at K=4096). 0 means the default,
	// DefaultSliceFrags, and is left out of names and JSON.
	SliceFrags int `json:",omitempty"`

	// L2KeepOperands (sm_90a; name suffix _l2k) puts an L2 evict_last
	// policy on the operand TMA loads, so the streamed epilogue data evicts
	// its own lines before dy and W_down. With raster n, group 2, it cut
	// bwd_dswiglu's operand re-reads from DRAM at the seed shape from 134
	// to 40 MB and the kernel by 3% (docs/PERFORMANCE.md#l2-keep-operands).
	L2KeepOperands bool `json:",omitempty"`
	// CLCStages (sm_100a with the clc scheduler; name suffix _clc{N}) is
	// the depth of the cluster-launch-control response ring: the scheduler
	// warp may ask for the tile CLCStages responses ahead of the slowest
	// role still reading one, so the request for the next tile does not
	// wait for the epilogue of the last (a ring of one put a CLC round trip
	// on the critical path whenever epilogue and mainloop take about as
	// long). 0 means the default, DefaultCLCStages, and is left out of
	// names and JSON; otherwise at least 2.
	CLCStages int `json:",omitempty"`
}

// DefaultSliceFrags is the overlap schedule's slice size when SliceFrags is
// 0: the fastest measured at the seed shape
// (docs/PERFORMANCE.md#schedule-overlap).
const DefaultSliceFrags = 4

// OverlapSliceFrags returns the overlap schedule's slice size: SliceFrags,
// or DefaultSliceFrags when it is 0.
func (c Config) OverlapSliceFrags() int {
	if c.SliceFrags == 0 {
		return DefaultSliceFrags
	}
	return c.SliceFrags
}
