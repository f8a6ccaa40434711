package perfmodel

// The measured rates every ledger row reports (bench, tune, the MLP
// ledger). They live beside the floors so a row's TFLOP/s, GB/s and
// share of the floor are computed one way everywhere; us is a median
// time in microseconds and must be positive (callers guard a zero).

// TFLOPs is the rate of flops FLOPs done in us microseconds, in TFLOP/s.
func TFLOPs(flops, us float64) float64 { return flops / (us * 1e-6) / 1e12 }

// GBs is the bandwidth of bytes moved in us microseconds, in GB/s.
func GBs(bytes, us float64) float64 { return bytes / (us * 1e-6) / 1e9 }

// PctOfFloor is floorUS as a percentage of us: 100 when a kernel runs at
// its roofline floor.
func PctOfFloor(floorUS, us float64) float64 { return 100 * floorUS / us }
