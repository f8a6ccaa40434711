package main

import (
	"context"
	"fmt"

	"github.com/swigen/swigen/runtime/check"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// gemmCache builds and loads each unfused path's gemm config once per
// run (bench and verify meet the same gemm at many shapes and configs).
type gemmCache struct {
	env   *check.Env
	gemms map[string]*launch.Kernel
}

// get returns the loaded gemm kernel of config g.
func (c *gemmCache) get(ctx context.Context, g tiling.Config) (*launch.Kernel, error) {
	if k, ok := c.gemms[g.Name()]; ok {
		return k, nil
	}
	cctx, cancel := compileCtx(ctx)
	k, _, err := check.BuildAndLoad(cctx, c.env, g)
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

func (c *gemmCache) close() {
	for _, k := range c.gemms {
		k.Close()
	}
}
