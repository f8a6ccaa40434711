package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/perfmodel"
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
	if err := o.checkNamesAndTuned(); err != nil {
		return err
	}
	if k := tiling.Kernel(o.Select.Kernel()); k != perfmodel.ModelKernel {
		return usageError(fmt.Errorf("bench %s --model %s: the datasheet model projects %s only (bench %s --model)",
			bench.KindArg(k), o.Model, perfmodel.ModelKernel, bench.KindArg(perfmodel.ModelKernel)))
	}
	if o.Probe != "" {
		return usageError(fmt.Errorf("bench --probe %s with --model %s: a projection runs no kernel to probe", o.Probe, o.Model))
	}
	shapes, err := o.Select.ParseShapes(o.Shapes)
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
	configs := func(s tiling.Shape) []tiling.Config {
		var cs []tiling.Config
		for _, j := range jobs {
			if slices.Contains(j.Shapes, s) {
				cs = append(cs, j.Config)
			}
		}
		return cs
	}
	return perfmodel.WriteModel(e.stdout, g, shapes, configs, bench.SuiteModel)
}

// modelJobs are the configs the pipeline projection covers at each shape:
// those of the selection flags for g's arch, as bench would time them
// (benchJobs). None for a GPU without a pipeline model.
func modelJobs(o *benchOptions, g perfmodel.GPU, shapes []tiling.Shape) ([]bench.Job, error) {
	if g.Pipe == nil {
		return nil, nil
	}
	if err := o.Select.Check(); err != nil {
		return nil, err
	}
	for _, n := range o.Select.Names {
		if c, err := tiling.ParseName(n); err == nil && c.Arch != g.Arch {
			return nil, usageError(fmt.Errorf("bench --model %s: --name %s targets %s; the %s pipeline projection models %s configs", o.Model, n, c.Arch, o.Model, g.Arch))
		}
	}
	return benchJobs(o, g.Arch, shapes)
}
