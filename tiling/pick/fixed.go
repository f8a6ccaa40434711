package pick

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// Fixed is verify's and bench's selection: explicit procedural names,
// the catalog, the whole space, or the heuristic for the shape, all on
// the GPU's one arch.
type Fixed struct {
	Names   []string
	Catalog bool
	Space   bool
	Kernel  string
	DType   string
	Shape   string
	// StoreOut picks the heuristic's config with StoreOut
	// (tiling.HeuristicStoreOut) when no config is named.
	StoreOut bool
}

// UsageError marks an error of the selection's words (bad input, which
// the CLI exits 2 on) from a failure to choose.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(err error) error { return &UsageError{err} }

// Check parses and checks the words that need no GPU (kernel, dtype,
// heuristic shape, and each name, which must validate and be
// implemented), so a bad value is reported before a GPU is opened or
// anything compiles. Every error is a UsageError.
func (c *Fixed) Check() error {
	if _, err := tiling.ParseKernel(c.Kernel); err != nil {
		return usage(err)
	}
	if _, err := tiling.ParseDType(c.DType); err != nil {
		return usage(err)
	}
	if _, err := tiling.ParseShape(c.Shape); err != nil {
		return usage(fmt.Errorf("--heuristic-shape: %w", err))
	}
	for _, n := range c.Names {
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

// Resolve is the selection on arch: the names, then the catalog's and
// the space's configs of arch and the kernel, or, when none is asked
// for, the heuristic's config at the shape. A config of another arch is
// a UsageError, as are words that do not parse; the heuristic's failure
// is not.
func (c *Fixed) Resolve(arch tiling.Arch) ([]tiling.Config, error) {
	k, err := tiling.ParseKernel(c.Kernel)
	if err != nil {
		return nil, usage(err)
	}
	d, err := tiling.ParseDType(c.DType)
	if err != nil {
		return nil, usage(err)
	}
	var cfgs []tiling.Config
	for _, n := range c.Names {
		cfg, err := tiling.ParseName(n)
		if err != nil {
			return nil, usage(err)
		}
		cfgs = append(cfgs, cfg)
	}
	if c.Catalog {
		cfgs = append(cfgs, FilterConfigs(tiling.Catalog(), []tiling.Kernel{k}, []tiling.Arch{arch}, nil)...)
	}
	if c.Space {
		cfgs = append(cfgs, tiling.Space(k, arch, d)...)
	}
	if len(cfgs) == 0 {
		cfg, err := c.heuristic(k, arch, d)
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

// heuristic is the heuristic's config of kind k on arch at the shape,
// with StoreOut when asked.
func (c *Fixed) heuristic(k tiling.Kernel, arch tiling.Arch, d tiling.DType) (tiling.Config, error) {
	s, err := tiling.ParseShape(c.Shape)
	if err != nil {
		return tiling.Config{}, usage(err)
	}
	h := tiling.Heuristic
	if c.StoreOut {
		h = tiling.HeuristicStoreOut
	}
	return h(k, arch, d, s)
}
