package check

import (
	"context"
	"fmt"
	"time"

	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// GemmCache builds and loads each unfused path's gemm config once per
// run (bench and verify meet the same gemm at many shapes and configs).
type GemmCache struct {
	Env *Env
	// BuildTimeout bounds one compile; 0 means no bound.
	BuildTimeout time.Duration
	gemms        map[string]*launch.Kernel
}

// Get returns the loaded gemm kernel of config g.
func (c *GemmCache) Get(ctx context.Context, g tiling.Config) (*launch.Kernel, error) {
	if k, ok := c.gemms[g.Name()]; ok {
		return k, nil
	}
	cctx, cancel := withTimeout(ctx, c.BuildTimeout)
	k, _, err := BuildAndLoad(cctx, c.Env, g)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("the unfused path's gemm %s: %w", g.Name(), err)
	}
	if c.gemms == nil {
		c.gemms = map[string]*launch.Kernel{}
	}
	c.gemms[g.Name()] = k
	return k, nil
}

// Close unloads every kernel of c.
func (c *GemmCache) Close() {
	for _, k := range c.gemms {
		k.Close()
	}
}

// unfusedChecker builds, per shape, the unfused path of a fused config
// (tiling.UnfusedGemm: the gemm config depends on the shape), sharing
// each gemm kernel and the elementwise module across configs.
type unfusedChecker struct {
	env     *Env
	arch    tiling.Arch
	timeout time.Duration
	ew      *elementwise.Module
	gemms   GemmCache
}

func newUnfusedChecker(env *Env, arch tiling.Arch, buildTimeout time.Duration) *unfusedChecker {
	return &unfusedChecker{env: env, arch: arch, timeout: buildTimeout, gemms: GemmCache{Env: env, BuildTimeout: buildTimeout}}
}

// Close unloads the kernels and the module u loaded.
func (u *unfusedChecker) Close() {
	u.gemms.Close()
	u.ew.Close()
}

// path returns fused's unfused path at shape s.
func (u *unfusedChecker) path(ctx context.Context, fused tiling.Config, s tiling.Shape) (*launch.Unfused, error) {
	g, _, err := tiling.UnfusedGemm(fused, s)
	if err != nil {
		return nil, err
	}
	if u.ew == nil {
		cctx, cancel := withTimeout(ctx, u.timeout)
		u.ew, err = elementwise.Compile(cctx, u.env.Ctx, u.env.Builder, u.arch)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	k, err := u.gemms.Get(ctx, g)
	if err != nil {
		return nil, err
	}
	return launch.NewUnfused(fused, k, u.ew)
}

// verify checks k's unfused path on every shape (each with its own gemm
// config), as Verify checks the fused kernel.
func (u *unfusedChecker) verify(ctx context.Context, k *launch.Kernel, shapes []tiling.Shape, o Options) []ShapeResult {
	var res []ShapeResult
	for i, s := range shapes {
		up, err := u.path(ctx, k.Man.Config, s)
		if err != nil {
			res = append(res, ShapeResult{Shape: s, Err: err})
			continue
		}
		so := o
		so.Unfused = up
		so.Seed = o.Seed + uint64(i) // fresh inputs per shape (not the fused check's: each shape runs alone)
		res = append(res, Verify(u.env, k, []tiling.Shape{s}, so)...)
	}
	return res
}
