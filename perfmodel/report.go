package perfmodel

import (
	"fmt"
	"io"

	"github.com/swigen/swigen/tiling"
)

// WriteModel prints bench --model's projection of bwd_dswiglu on g: the
// roofline floors at each shape and, on a GPU with a pipeline model, the
// per-tile projection of each of configs(shape). suite names a shape of
// the model-shape suite ("" for none). It is labelled a projection:
// nothing runs.
func WriteModel(w io.Writer, g GPU, shapes []tiling.Shape, configs func(tiling.Shape) []tiling.Config, suite func(tiling.Shape) string) error {
	fmt.Fprintf(w, "PROJECTION (roofline from datasheet numbers, not a measurement): %s\n", g.Label)
	if g.Pipe != nil {
		g.WritePipelineHeader(w)
	}
	for _, s := range shapes {
		BwdRoofline(g, s).Write(w, s)
		for _, c := range configs(s) {
			p, err := Project(g, c, s)
			if err != nil {
				return err
			}
			p.Write(w, suite(s))
		}
	}
	if g.SeedRef != "" {
		fmt.Fprintf(w, "for comparison, %s\n", g.SeedRef)
	}
	return nil
}

// Write prints the fused and unfused floors of bwd_dswiglu at s.
func (r Roofline) Write(w io.Writer, s tiling.Shape) {
	fmt.Fprintf(w, "bwd_dswiglu M=%d K=%d I=%d: %.0f GFLOP, %.0f MB minimum traffic\n", s.M, s.K, s.I, r.FLOPs/1e9, r.Bytes/1e6)
	fmt.Fprintf(w, "  compute %.1f us, memory %.1f us -> fused floor %.1f us (%s-bound)\n", r.ComputeUS, r.MemoryUS, r.FloorUS(), r.Bound())
	fmt.Fprintf(w, "  unfused floor: GEMM %.1f us + elementwise %.1f us = %.1f us\n", r.GemmUS, r.ElementwiseUS, r.UnfusedUS())
}

// WritePipelineHeader states the numbers and the formula behind every
// per-tile projection on g (Pipeline, TileTimes, Schedule); g must have
// a Pipe.
func (g GPU) WritePipelineHeader(w io.Writer) {
	p := g.Pipe
	fmt.Fprintf(w, "PER-TILE PIPELINE PROJECTION (not measured; no Blackwell GPU) of each shape's %s config, per SM of %d at the %.3f GHz tensor clock (%.0f TFLOP/s / (%d SMs x %.0f FLOP/clk)):\n",
		g.Arch, g.SMs, g.ClockGHz(), g.TFLOPs, g.SMs, p.TensorFLOPPerClk)
	fmt.Fprintf(w, "  datasheet shares: tcgen05 %.0f/%d = %.2f TFLOP/s, HBM %g/%d = %.2f GB/s; programming guide: shared memory %.0f B/clk, ALU %.0f and MUFU %.0f ops/clk\n",
		g.TFLOPs, g.SMs, g.TFLOPs/float64(g.SMs), g.HBMTBs, g.SMs, g.HBMTBs*1e3/float64(g.SMs), p.SmemBytesPerClk, p.ALUPerClk, p.MUFUPerClk)
	fmt.Fprintf(w, "  assumed: L2->SM %.0f B/clk, TMEM->registers %.0f B/clk, launch %.1f us, first TMA load %.1f us, CLC round trip %.1f us\n",
		p.L2BytesPerClk, p.TMEMBytesPerClk, p.LaunchUS, p.TMALatencyUS, p.CLCRoundTripUS)
	fmt.Fprintln(w, "  mainloop = max(MMA = 2*rows*cols*K / tcgen05, TMA = operand bytes / L2)")
	fmt.Fprintln(w, "  epilogue = max(warpgroup = TMEM->registers + dSwiGLU math + smem staging, HBM = (de loads + stores) / HBM)")
	fmt.Fprintf(w, "  steady = max(mainloop, epilogue) per tile: %d TMEM accumulators, the epilogue of tile i runs under the mainloop of tile i+1\n", tiling.AccStages)
	fmt.Fprintf(w, "  kernel = max(launch + first load + mainloop + (n-1)*steady + epilogue + CLC stalls, roofline floor), n = ceil(tiles / (%d SMs / CTAs per tile))\n", g.SMs)
}

// Write prints the projection of one config at one shape; suite, when
// not "", names the model-shape suite's shape it is.
func (p Projection) Write(w io.Writer, suite string) {
	t, k := p.Times, p.Work
	if suite != "" {
		suite = "; suite shape: " + suite
	}
	fmt.Fprintf(w, "  projection (not measured; no Blackwell GPU) of %s%s\n", p.Config.Name(), suite)
	fmt.Fprintf(w, "    tile per SM %dx%d, K %d: mainloop %.2f us = max(MMA %.2f us [%.1f MFLOP], TMA %.2f us [%.0f KB from L2])\n",
		k.Rows, k.Cols, k.K, t.Mainloop, t.MMA, k.MMAFLOPs/1e6, t.TMA, k.OperandBytes/1e3)
	fmt.Fprintf(w, "    epilogue %.2f us = max(warpgroup %.2f us, HBM %.2f us)\n", t.Epilogue, t.Warpgroup, t.HBM)
	fmt.Fprintf(w, "      warpgroup: TMEM->registers %.2f us [%.0f KB], dSwiGLU math %.2f us [%g ALU + %g MUFU ops/element], smem staging %.2f us [%.0f KB]\n",
		t.TMEMLoad, k.TMEMBytes/1e3, t.Math, ALUPerElement(p.Config), MUFUPerElement(p.Config), t.Smem, k.SmemBytes/1e3)
	stores := "grad_de"
	if p.Config.StoreOut {
		stores = "grad_de + out"
	}
	fmt.Fprintf(w, "      HBM: de loads %.2f us [%.0f KB], %s stores %.2f us [%.0f KB]\n", t.Loads, k.LoadBytes/1e3, stores, t.Stores, k.StoreBytes/1e3)
	sched := "static scheduler"
	if d := p.Schedule.CLCDepth; d > 0 {
		sched = fmt.Sprintf("CLC scheduler, response ring %d deep: stalls %.2f us", d, p.CLCStallUS)
	}
	fmt.Fprintf(w, "    steady %.2f us per tile (%s); %s\n", p.SteadyUS, t.Bound(), sched)
	units := "CTAs"
	if p.Config.CTAsPerTile() == 2 {
		units = "CTA pairs"
	}
	fmt.Fprintf(w, "    %d tiles on %d %s: %.2f waves, %d tiles on the busiest\n", p.Tiles, p.Units, units, p.Waves(), p.TilesPerUnit)
	floor := "floor"
	if p.Config.StoreOut {
		floor = "floor with out stored"
	}
	fmt.Fprintf(w, "    kernel %.1f us = max(%.1f + %.1f + %.2f + %d x %.2f + %.2f + %.2f = %.1f us, %s %.1f us)\n",
		p.KernelUS, p.Schedule.LaunchUS, p.Schedule.TMALatencyUS, t.Mainloop, p.TilesPerUnit-1, p.SteadyUS, t.Epilogue, p.CLCStallUS, p.PipelineUS, floor, p.FloorUS)
}

// Bound names what sets a tile's steady-state time: the epilogue's HBM
// traffic or warpgroup, or the mainloop's MMA or TMA.
func (t TileTimes) Bound() string {
	switch {
	case t.Epilogue > t.Mainloop && t.HBM >= t.Warpgroup:
		return "epilogue-bound: HBM"
	case t.Epilogue > t.Mainloop:
		return "epilogue-bound: warpgroup"
	case t.MMA >= t.TMA:
		return "mainloop-bound: MMA"
	}
	return "mainloop-bound: TMA"
}
