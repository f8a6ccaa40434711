package launch

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// LoadSource compiles a hand-written CUDA source (the baselines' and the
// references' helper kernels) for sm_90a with tc, loads it into cctx and
// looks up the named entry points. On any error nothing stays loaded.
func LoadSource(ctx context.Context, cctx *cu.Context, tc Compiler, name string, src []byte, entries []string) (*cu.Module, map[string]*cu.Function, error) {
	if cctx == nil || tc == nil {
		return nil, nil, fmt.Errorf("load %s: nil context or compiler", name)
	}
	cubin, err := tc.CompileCUDA(ctx, name, src, tiling.ArchSM90a)
	if err != nil {
		return nil, nil, err
	}
	mod, err := cctx.LoadModule(cubin)
	if err != nil {
		return nil, nil, err
	}
	fns := make(map[string]*cu.Function, len(entries))
	for _, e := range entries {
		f, err := mod.Function(e)
		if err != nil {
			_ = mod.Unload()
			return nil, nil, err
		}
		fns[e] = f
	}
	return mod, fns, nil
}

// Helper is a hand-written helper module (see LoadSource) loaded on one
// context: its entry points by name and the device's SM count, which sizes
// the grid of the grid-stride helper kernels.
type Helper struct {
	Ctx *cu.Context
	Fns map[string]*cu.Function
	SMs int
	mod *cu.Module
}

// LoadHelper compiles and loads src like LoadSource and wraps the result.
func LoadHelper(ctx context.Context, cctx *cu.Context, tc Compiler, name string, src []byte, entries []string) (*Helper, error) {
	mod, fns, err := LoadSource(ctx, cctx, tc, name, src, entries)
	if err != nil {
		return nil, err
	}
	h := &Helper{Ctx: cctx, Fns: fns, mod: mod}
	if h.SMs, err = cctx.Device().Attribute(cu.AttrMultiprocessorCount); err != nil || h.SMs <= 0 {
		h.SMs = 132 // H100/H200; only sizes the grid
	}
	return h, nil
}

// Loaded reports whether h holds a module (a nil or closed Helper does not).
func (h *Helper) Loaded() bool { return h != nil && h.mod != nil }

// Close unloads the module; closing a nil or closed Helper does nothing.
func (h *Helper) Close() error {
	if !h.Loaded() {
		return nil
	}
	err := h.mod.Unload()
	h.mod = nil
	return err
}

// VariantEntries lists entry(dt, vec) for every type the helper modules
// have entry points for (tiling.HelperDTypes) and both the
// vectorized and the scalar variant: the entry points of the elementwise
// helper kernels.
func VariantEntries(entry func(dt tiling.DType, vec bool) string) []string {
	var entries []string
	for _, dt := range tiling.HelperDTypes() {
		for _, vec := range []bool{true, false} {
			entries = append(entries, entry(dt, vec))
		}
	}
	return entries
}
