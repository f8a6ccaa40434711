package main

import (
	"fmt"
	"strings"

	"github.com/swigen/swigen/perfmodel"
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
// written and read back) beside it. It is labelled a projection: nothing
// runs.
func runModel(e *env, o *benchOptions) error {
	g, err := modelGPU(o.Model)
	if err != nil {
		return err
	}
	shapes, err := parseShapes(o.Shapes)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "PROJECTION (roofline from datasheet numbers, not a measurement): %s\n", g.Label)
	for _, s := range shapes {
		r := perfmodel.BwdRoofline(g, s)
		fmt.Fprintf(w, "bwd_dswiglu M=%d K=%d I=%d: %.0f GFLOP, %.0f MB minimum traffic\n", s.M, s.K, s.I, r.FLOPs/1e9, r.Bytes/1e6)
		fmt.Fprintf(w, "  compute %.1f us, memory %.1f us -> fused floor %.1f us (%s-bound)\n", r.ComputeUS, r.MemoryUS, r.FloorUS(), r.Bound())
		fmt.Fprintf(w, "  unfused floor: GEMM %.1f us + elementwise %.1f us = %.1f us\n", r.GemmUS, r.ElementwiseUS, r.UnfusedUS())
	}
	if g.SeedRef != "" {
		fmt.Fprintf(w, "for comparison, %s\n", g.SeedRef)
	}
	return nil
}
