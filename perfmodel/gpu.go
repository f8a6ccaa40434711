// Package perfmodel projects swigen kernel times on GPUs from their
// datasheet numbers, without running anything: the roofline floor of
// bwd_dswiglu and of its unfused baseline (BwdRoofline) and, for a GPU
// with a Pipeline, the per-tile pipeline of one sm_100a config
// (Project). Everything here is a projection, never a measurement;
// lab/bench measures.
//
// The datasheet numbers: B200 148 SMs, ~2250 TFLOP/s dense bf16, ~8 TB/s
// HBM3e; H200 132 SMs, ~990 TFLOP/s, ~4.8 TB/s. The B200's per-tile
// projection gives each SM its share of both (15.2 TFLOP/s, 54 GB/s) and
// computes, for the busiest of the work units (148 SMs / CTAs per tile),
// which runs n = ceil(tiles / units) tiles,
//
//	mainloop = max(MMA, operand TMA)
//	epilogue = max(TMEM->registers + math + smem staging, (de loads + stores) / HBM share)
//	kernel   = max(launch + first TMA load + mainloop + (n-1)*max(mainloop, epilogue)
//	               + epilogue + CLC stalls, roofline floor)
//
// (TileTimes, Schedule.Run; the rates no datasheet gives, and what each
// rests on, are in Pipeline's doc).
//
// It imports only tiling and manifest (whose grid rule sizes the
// projected launch), so a projection needs no GPU, driver or compiler.
package perfmodel

import (
	"strings"

	"github.com/swigen/swigen/tiling"
)

// GPU is a datasheet GPU.
type GPU struct {
	// Label names the GPU and the datasheet numbers used; projections
	// print it.
	Label string
	// TFLOPs is the dense 16-bit (bf16/fp16) tensor-core rate.
	TFLOPs float64
	// HBMTBs is the HBM bandwidth in TB/s.
	HBMTBs float64
	// SMs is the multiprocessor count.
	SMs int
	// SeedRef is what the seed measured on this GPU, if anything, printed
	// beside the projection for comparison.
	SeedRef string
	// Arch is the target swigen compiles for this GPU.
	Arch tiling.Arch
	// Pipe holds the per-SM rates of the per-tile projection; nil where
	// there is none (the H200 is measured instead: bench without --model).
	Pipe *Pipeline
}

var gpus = map[string]GPU{
	"b200": {Label: "B200 (datasheet: 148 SMs, dense bf16 ~2250 TFLOP/s, HBM ~8 TB/s)", TFLOPs: 2250, HBMTBs: 8, SMs: 148,
		SeedRef: "seed's measured B200 numbers: unfused 194 us -> fused 175.5 us", Arch: tiling.ArchSM100a, Pipe: &b200Pipeline},
	"h200": {Label: "H200 (datasheet: 132 SMs, dense bf16 ~990 TFLOP/s, HBM ~4.8 TB/s)", TFLOPs: 990, HBMTBs: 4.8, SMs: 132,
		Arch: tiling.ArchSM90a},
}

// Names lists the GPU names Lookup knows, sorted.
func Names() []string { return []string{"b200", "h200"} }

// Lookup returns the GPU called name (case-insensitive; one of Names).
func Lookup(name string) (GPU, bool) {
	g, ok := gpus[strings.ToLower(name)]
	return g, ok
}
