package perfmodel

// Pipeline is what the per-tile projection (Project) needs beyond the
// datasheet: per-SM rates of the units one tile passes through, and the
// latencies that are paid once per tile sequence. Per-clock rates become
// per-second rates at the GPU's tensor clock (GPU.ClockGHz).
//
// The B200 values, and where each comes from:
//
//   - TensorFLOPPerClk 8192: dense 16-bit tcgen05 FLOPs per clock per SM
//     (twice Hopper's 4096). Only its ratio to the datasheet rate is used:
//     it sets the clock, 2250 TFLOP/s / (148 SMs * 8192) = 1.856 GHz, so
//     the MMA time of a tile is its FLOPs over the datasheet rate's per-SM
//     share, 2250/148 = 15.2 TFLOP/s.
//   - SmemBytesPerClk 128 (32 banks of 4 bytes), ALUPerClk 128 (FP32
//     lanes) and MUFUPerClk 16 (ex2, rcp, tanh): the CUDA C++ Programming
//     Guide's per-SM throughputs.
//   - L2BytesPerClk 64, assumed: NVIDIA publishes no B200 L2 bandwidth.
//     At 64 bytes per clock a 2-CTA 256x256 tile's operand loads (each
//     CTA 128 rows of A and 128 of B per 64-deep k-block, 32 KB) take as
//     long as its MMAs (512 clocks); a 1-CTA 128x256 tile needs 96 bytes
//     per clock, which is why the 2-CTA schedule exists.
//   - TMEMBytesPerClk 512, assumed: each of the four epilogue warps reads
//     one 32-bit column of its 32 TMEM lanes per clock.
//   - LaunchUS, TMALatencyUS 1 each, assumed: from the launch to the first
//     TMA issue (barrier init, TMEM alloc, cluster sync), and from a TMA
//     issue to its data in shared memory from HBM.
//   - CLCRoundTripUS 1: the cluster-launch-control request-to-response
//     time the sm_100a audit (issue 22, D2) estimated.
type Pipeline struct {
	TensorFLOPPerClk float64
	SmemBytesPerClk  float64
	ALUPerClk        float64
	MUFUPerClk       float64
	L2BytesPerClk    float64
	TMEMBytesPerClk  float64
	LaunchUS         float64
	TMALatencyUS     float64
	CLCRoundTripUS   float64
}

var b200Pipeline = Pipeline{
	TensorFLOPPerClk: 8192,
	SmemBytesPerClk:  128,
	ALUPerClk:        128,
	MUFUPerClk:       16,
	L2BytesPerClk:    64,
	TMEMBytesPerClk:  512,
	LaunchUS:         1,
	TMALatencyUS:     1,
	CLCRoundTripUS:   1,
}

// ClockGHz is the tensor clock the datasheet rate implies:
// TFLOPs / (SMs * Pipe.TensorFLOPPerClk). 0 without a Pipeline.
func (g GPU) ClockGHz() float64 {
	if g.Pipe == nil || g.SMs == 0 {
		return 0
	}
	return g.TFLOPs * 1e3 / (float64(g.SMs) * g.Pipe.TensorFLOPPerClk)
}

// perSM converts a per-clock rate of one SM into a per-microsecond one.
func (g GPU) perSM(perClk float64) float64 { return perClk * g.ClockGHz() * 1e3 }

// tensorPerUS and hbmPerUS are one SM's share of the datasheet tensor
// rate (FLOP/us) and HBM bandwidth (bytes/us).
func (g GPU) tensorPerUS() float64 { return g.TFLOPs * 1e6 / float64(g.SMs) }
func (g GPU) hbmPerUS() float64    { return g.HBMTBs * 1e6 / float64(g.SMs) }
