package mlp

import (
	"fmt"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// planOther plans the step's kernels other than bwd_dswiglu on the
// buffers t: fwd_gateup (training: it also writes de), fwd_down (no
// residual) and the three plain GEMMs.
func planOther(k *launch.Kernel, seg Segment, sh tiling.Shape, t *Tensors) (Launcher, error) {
	switch seg {
	case FwdGateUp:
		return k.Plan(launch.FwdGateUpArgs{M: sh.M, K: sh.K, I: sh.I, X: t.X, W: t.W, De: t.De, Out: t.Out})
	case FwdDown:
		return k.Plan(launch.FwdDownArgs{M: sh.M, K: sh.K, I: sh.I, Out: t.Out, WDown: t.WDown, Y: t.Y})
	}
	g, ok := segmentGemm(seg, sh)
	if !ok {
		return nil, fmt.Errorf("%w for %s", ErrNoKernel, seg)
	}
	a := launch.GemmArgs{M: g.M, N: g.N, K: g.K}
	switch seg {
	case DWDown: // dW_down [I,K] = out^T @ dy
		a.A, a.B, a.C = t.Out, t.Dy, t.DWDown
	case DX: // dx [M,K] = grad_de @ W
		a.A, a.B, a.C = t.GradDe, t.W, t.DX
	case DW: // dW [2I,K] = grad_de^T @ x
		a.A, a.B, a.C = t.GradDe, t.X, t.DW
	default:
		return nil, fmt.Errorf("%w for %s", ErrNoKernel, seg)
	}
	return k.Plan(a)
}

// ParseOverrides parses the procedural names of configs that replace
// the heuristic's for every segment of their kind (Swigen.Override): at
// most one a kind, each of dtype dt.
func ParseOverrides(names []string, dt tiling.DType) ([]tiling.Config, error) {
	seen := map[tiling.Kernel]string{}
	var cs []tiling.Config
	for _, n := range names {
		c, err := tiling.ParseName(n)
		if err != nil {
			return nil, fmt.Errorf("--name %q: %w", n, err)
		}
		if prev, ok := seen[c.Kernel]; ok {
			return nil, fmt.Errorf("--name %q: kernel %s already set by %q (one config per kind)", n, c.Kernel, prev)
		}
		if c.DType != dt {
			return nil, fmt.Errorf("--name %q: dtype %s, but --dtype is %s", n, c.DType, dt)
		}
		seen[c.Kernel] = n
		cs = append(cs, c)
	}
	return cs, nil
}
