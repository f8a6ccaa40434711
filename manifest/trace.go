package manifest

// The trace probe's record buffer (sw_trace, a __device__ global): thread 0
// of each consumer writes one record per tile, TraceCtas CTAs x 2
// consumers x TraceTiles tiles of TraceWords 8-byte words; CTAs and tiles
// past those are not recorded.
const (
	TraceSymbol = "sw_trace"
	TraceCtas   = 160
	TraceTiles  = 96
	TraceWords  = 10
)
