// Package perfmodel projects swigen kernel times on GPUs from their
// datasheet numbers, without running anything: the roofline floor of
// bwd_dswiglu and of its unfused baseline. Everything here is a
// projection, never a measurement; runtime/bench measures.
//
// It imports only tiling, so a projection needs no GPU, no driver and no
// compiler.
package perfmodel

import "strings"

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
}

var gpus = map[string]GPU{
	"b200": {Label: "B200 (datasheet: 148 SMs, dense bf16 ~2250 TFLOP/s, HBM ~8 TB/s)", TFLOPs: 2250, HBMTBs: 8, SMs: 148,
		SeedRef: "seed's measured B200 numbers: unfused 194 us -> fused 175.5 us"},
	"h200": {Label: "H200 (datasheet: 132 SMs, dense bf16 ~990 TFLOP/s, HBM ~4.8 TB/s)", TFLOPs: 990, HBMTBs: 4.8, SMs: 132},
}

// Names lists the GPU names Lookup knows, sorted.
func Names() []string { return []string{"b200", "h200"} }

// Lookup returns the GPU called name (case-insensitive; one of Names).
func Lookup(name string) (GPU, bool) {
	g, ok := gpus[strings.ToLower(name)]
	return g, ok
}
