package perfmodel

import "math"

// Ceilings are a machine's measured GEMM rate and copy bandwidth: the
// denominators of every roofline floor swigen reports (bench, tune, the
// MLP ledger). The JSON names are the results DB's.
type Ceilings struct {
	GemmTFLOPs float64 `json:"gemm_tflops"` // cuBLAS 8192^3 in the benchmark's dtype
	CopyGBs    float64 `json:"copy_gbs"`    // device-to-device copy, bytes read + written
}

// Known reports whether both ceilings have been measured.
func (c Ceilings) Known() bool { return c.GemmTFLOPs > 0 && c.CopyGBs > 0 }

// FloorUS is the roofline floor in microseconds of work of flops FLOPs
// that must move bytes bytes: max(flops / GEMM rate, bytes / copy
// bandwidth), or 0 when the ceilings are not known.
func (c Ceilings) FloorUS(flops, bytes float64) float64 {
	if !c.Known() {
		return 0
	}
	return math.Max(flops/(c.GemmTFLOPs*1e12), bytes/(c.CopyGBs*1e9)) * 1e6
}
