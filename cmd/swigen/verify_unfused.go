package main

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/runtime/check"
	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// verifyPaths says which paths verify checks: both by default, so the
// dispatch plan can take either; --path fused or unfused checks one.
type verifyPaths struct {
	fused, unfused bool
}

func parseVerifyPaths(s string) (verifyPaths, error) {
	switch s {
	case "both":
		return verifyPaths{true, true}, nil
	case string(tiling.PathFused):
		return verifyPaths{fused: true}, nil
	case string(tiling.PathUnfused):
		return verifyPaths{unfused: true}, nil
	}
	return verifyPaths{}, usageError(fmt.Errorf("verify: --path %q: want both, fused or unfused", s))
}

// unfusedChecker builds, per shape, the unfused path of a fused config
// (tiling.UnfusedGemm: the gemm config depends on the shape), sharing
// each gemm kernel and the elementwise module across configs.
type unfusedChecker struct {
	env   *check.Env
	arch  tiling.Arch
	ew    *elementwise.Module
	gemms gemmCache
}

func (u *unfusedChecker) close() {
	u.gemms.close()
	u.ew.Close()
}

// path returns fused's unfused path at shape s.
func (u *unfusedChecker) path(ctx context.Context, fused tiling.Config, s tiling.Shape) (*launch.Unfused, error) {
	g, _, err := tiling.UnfusedGemm(fused, s)
	if err != nil {
		return nil, err
	}
	if u.ew == nil {
		cctx, cancel := compileCtx(ctx)
		u.ew, err = elementwise.Compile(cctx, u.env.Ctx, u.env.Builder, u.arch)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	k, err := u.gemms.get(ctx, g)
	if err != nil {
		return nil, err
	}
	return launch.NewUnfused(fused, k, u.ew)
}

// verify checks k's unfused path on every shape (each with its own gemm
// config), as check.Verify checks the fused kernel.
func (u *unfusedChecker) verify(ctx context.Context, k *launch.Kernel, shapes []tiling.Shape, o check.Options) []check.ShapeResult {
	var res []check.ShapeResult
	for i, s := range shapes {
		up, err := u.path(ctx, k.Man.Config, s)
		if err != nil {
			res = append(res, check.ShapeResult{Shape: s, Err: err})
			continue
		}
		so := o
		so.Unfused = up
		so.Seed = o.Seed + uint64(i) // fresh inputs per shape (not the fused check's: each shape runs alone)
		res = append(res, check.Verify(u.env, k, []tiling.Shape{s}, so)...)
	}
	return res
}
