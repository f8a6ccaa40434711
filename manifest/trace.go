package manifest

// TraceSymbol is the trace probe's record buffer, a __device__ global.
const TraceSymbol = "sw_trace"

// TraceLayout sizes the trace probe's record buffer (TraceSymbol): one
// record of Words 8-byte words per CTA (up to Ctas), consumer (2) and tile
// (up to Tiles); later CTAs and tiles are not recorded. lab/bench's
// ParseTrace reads it.
type TraceLayout struct {
	Ctas  int `json:"ctas"`
	Tiles int `json:"tiles"`
	Words int `json:"words"`
}

// DefaultTraceLayout is the trace probe's buffer: every CTA of a 132-SM
// GPU, 96 tiles each, ten words a record.
var DefaultTraceLayout = TraceLayout{Ctas: 160, Tiles: 96, Words: 10}
