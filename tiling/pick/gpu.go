package pick

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// Check parses and checks the words of a one-GPU selection (verify's and
// bench's) that need no GPU (kernel, dtype, heuristic shape, and each
// name, which must validate and be implemented), so a bad value is
// reported before a GPU is opened or anything compiles. Every error is a
// UsageError.
func (o *Request) Check() error {
	k, err := tiling.ParseKernel(o.Kernel())
	if err != nil {
		return usage(err)
	}
	if _, err := tiling.ParseDType(o.DType); err != nil {
		return usage(err)
	}
	if _, err := tiling.ParseKindShape(k, o.Shape); err != nil {
		return usage(fmt.Errorf("--heuristic-shape: %w", err))
	}
	for _, n := range o.Names {
		cfg, err := tiling.ParseName(n)
		if err != nil {
			return usage(err)
		}
		if _, err := tiling.Check(cfg); err != nil {
			return usage(fmt.Errorf("--name: %w", err))
		}
	}
	return nil
}

// ConfigsOn is the one-kernel selection on the GPU's arch: the names,
// then the catalog's and the space's configs of arch and the kernel, or,
// when none is asked for, the heuristic's config at the shape. A config
// of another arch is a UsageError, as are words that do not parse; the
// heuristic's failure is not.
func (o *Request) ConfigsOn(arch tiling.Arch) ([]tiling.Config, error) {
	k, err := tiling.ParseKernel(o.Kernel())
	if err != nil {
		return nil, usage(err)
	}
	d, err := tiling.ParseDType(o.DType)
	if err != nil {
		return nil, usage(err)
	}
	var cfgs []tiling.Config
	for _, n := range o.Names {
		cfg, err := tiling.ParseName(n)
		if err != nil {
			return nil, usage(err)
		}
		cfgs = append(cfgs, cfg)
	}
	if o.Catalog {
		cfgs = append(cfgs, FilterConfigs(tiling.Catalog(), []tiling.Kernel{k}, []tiling.Arch{arch}, nil)...)
	}
	if o.Space {
		cfgs = append(cfgs, tiling.Space(k, arch, d)...)
	}
	if len(cfgs) == 0 {
		s, err := tiling.ParseKindShape(k, o.Shape)
		if err != nil {
			return nil, usage(err)
		}
		cfg, err := o.heuristic(k, arch, d, s)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, cfg)
	}
	for _, cfg := range cfgs {
		if cfg.Arch != arch {
			return nil, usage(fmt.Errorf("config %s targets %s but this GPU runs %s kernels", cfg.Name(), cfg.Arch, arch))
		}
	}
	return cfgs, nil
}
