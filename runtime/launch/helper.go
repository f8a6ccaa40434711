package launch

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// LoadSource compiles a hand-written CUDA source (the baselines' and the
// references' helper kernels) for sm_90a with tc, loads it into cctx and
// looks up the named entry points. On any error nothing stays loaded.
func LoadSource(ctx context.Context, cctx *cu.Context, tc *gen.Toolchain, name string, src []byte, entries []string) (*cu.Module, map[string]*cu.Function, error) {
	if cctx == nil || tc == nil {
		return nil, nil, fmt.Errorf("load %s: nil context or toolchain", name)
	}
	br, err := tc.Compile(ctx, name, src, gen.CompileOptions{Arch: string(tiling.ArchSM90a)})
	if err != nil {
		return nil, nil, err
	}
	mod, err := cctx.LoadModule(br.Cubin)
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
