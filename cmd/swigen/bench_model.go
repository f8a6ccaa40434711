package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/tiling"
)

// modelGPU returns the datasheet GPU --model names, or a usage error
// listing the known ones.
func modelGPU(name string) (perfmodel.GPU, error) {
	g, ok := perfmodel.Lookup(name)
	if !ok {
		return perfmodel.GPU{}, usageError(fmt.Errorf("bench --model %q: want one of %s", name, strings.Join(perfmodel.Names(), ", ")))
	}
	return g, nil
}

// runModel prints the roofline floor of bwd_dswiglu for the shapes on a
// datasheet GPU (perfmodel), with the unfused baseline's floor (dout
// written and read back) beside it, and, on a GPU with a pipeline model
// (the B200), the per-tile pipeline projection of each shape's config.
// It is labelled a projection: nothing runs.
func runModel(e *env, o *benchOptions) error {
	g, err := modelGPU(o.Model)
	if err != nil {
		return err
	}
	if o.Select.Kernel != string(tiling.KernelBwdDSwiGLU) {
		return usageError(fmt.Errorf("bench %s --model %s: the datasheet model projects bwd_dswiglu only (bench bwd --model)", kindArg(tiling.Kernel(o.Select.Kernel)), o.Model))
	}
	if o.Probe != "" {
		return usageError(fmt.Errorf("bench --probe %s with --model %s: a projection runs no kernel to probe", o.Probe, o.Model))
	}
	shapes, err := parseShapes(o.Shapes)
	if err != nil {
		return err
	}
	if o.Suite {
		shapes = bench.SuiteShapes()
	}
	jobs, err := modelJobs(o, g, shapes)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "PROJECTION (roofline from datasheet numbers, not a measurement): %s\n", g.Label)
	if g.Pipe != nil {
		printPipelineHeader(w, g)
	}
	for _, s := range shapes {
		printRoofline(w, perfmodel.BwdRoofline(g, s), s)
		for _, j := range jobs {
			if !slices.Contains(j.shapes, s) {
				continue
			}
			p, err := perfmodel.Project(g, j.cfg, s)
			if err != nil {
				return err
			}
			printProjection(w, p)
		}
	}
	if g.SeedRef != "" {
		fmt.Fprintf(w, "for comparison, %s\n", g.SeedRef)
	}
	return nil
}

// modelJobs are the configs the pipeline projection covers at each shape:
// those of the selection flags for g's arch, as bench would time them
// (benchJobs). None for a GPU without a pipeline model.
func modelJobs(o *benchOptions, g perfmodel.GPU, shapes []tiling.Shape) ([]benchJob, error) {
	if g.Pipe == nil {
		return nil, nil
	}
	if err := selectionErr(o.Select.Check()); err != nil {
		return nil, err
	}
	for _, n := range o.Select.Names {
		if c, err := tiling.ParseName(n); err == nil && c.Arch != g.Arch {
			return nil, usageError(fmt.Errorf("bench --model %s: --name %s targets %s; the %s pipeline projection models %s configs", o.Model, n, c.Arch, o.Model, g.Arch))
		}
	}
	return benchJobs(o, g.Arch, shapes)
}

// printRoofline prints the fused and unfused floors of bwd_dswiglu at s.
func printRoofline(w io.Writer, r perfmodel.Roofline, s tiling.Shape) {
	fmt.Fprintf(w, "bwd_dswiglu M=%d K=%d I=%d: %.0f GFLOP, %.0f MB minimum traffic\n", s.M, s.K, s.I, r.FLOPs/1e9, r.Bytes/1e6)
	fmt.Fprintf(w, "  compute %.1f us, memory %.1f us -> fused floor %.1f us (%s-bound)\n", r.ComputeUS, r.MemoryUS, r.FloorUS(), r.Bound())
	fmt.Fprintf(w, "  unfused floor: GEMM %.1f us + elementwise %.1f us = %.1f us\n", r.GemmUS, r.ElementwiseUS, r.UnfusedUS())
}

// printPipelineHeader states the numbers and the formula behind every
// per-tile projection (perfmodel.Pipeline, TileTimes, Schedule).
func printPipelineHeader(w io.Writer, g perfmodel.GPU) {
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

// printProjection prints one config's per-tile projection at one shape.
func printProjection(w io.Writer, p perfmodel.Projection) {
	t, k := p.Times, p.Work
	suite := ""
	if m := bench.SuiteModel(p.Shape); m != "" {
		suite = "; suite shape: " + m
	}
	fmt.Fprintf(w, "  projection (not measured; no Blackwell GPU) of %s%s\n", p.Config.Name(), suite)
	fmt.Fprintf(w, "    tile per SM %dx%d, K %d: mainloop %.2f us = max(MMA %.2f us [%.1f MFLOP], TMA %.2f us [%.0f KB from L2])\n",
		k.Rows, k.Cols, k.K, t.Mainloop, t.MMA, k.MMAFLOPs/1e6, t.TMA, k.OperandBytes/1e3)
	fmt.Fprintf(w, "    epilogue %.2f us = max(warpgroup %.2f us, HBM %.2f us)\n", t.Epilogue, t.Warpgroup, t.HBM)
	fmt.Fprintf(w, "      warpgroup: TMEM->registers %.2f us [%.0f KB], dSwiGLU math %.2f us [%g ALU + %g MUFU ops/element], smem staging %.2f us [%.0f KB]\n",
		t.TMEMLoad, k.TMEMBytes/1e3, t.Math, perfmodel.ALUPerElement(p.Config), perfmodel.MUFUPerElement(p.Config), t.Smem, k.SmemBytes/1e3)
	stores := "grad_de"
	if p.Config.StoreOut {
		stores = "grad_de + out"
	}
	fmt.Fprintf(w, "      HBM: de loads %.2f us [%.0f KB], %s stores %.2f us [%.0f KB]\n", t.Loads, k.LoadBytes/1e3, stores, t.Stores, k.StoreBytes/1e3)
	sched := "static scheduler"
	if d := p.Schedule.CLCDepth; d > 0 {
		sched = fmt.Sprintf("CLC scheduler, response ring %d deep: stalls %.2f us", d, p.CLCStallUS)
	}
	fmt.Fprintf(w, "    steady %.2f us per tile (%s); %s\n", p.SteadyUS, boundBy(t), sched)
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

// boundBy names what sets a tile's steady-state time.
func boundBy(t perfmodel.TileTimes) string {
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
