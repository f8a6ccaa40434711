package view

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// sm90Kind is what one kernel kind changes in the sm_90a skeleton: how many
// halves its B tile has (fwd_gateup loads left and gate rows of W as two
// halves) and, in apply, its operand names and epilogue layout.
type sm90Kind struct {
	halves int
	apply  func(v *SM90, c tiling.Config, sub int) error
}

// sm90KindOf returns the kind-specific part of the sm_90a view of c.
//
// The kinds and how each GEMM operand maps onto the MLP tensors
// (ARCHITECTURE.md §1; "K-major": the reduction dimension is contiguous):
//
//   - bwd_dswiglu: dout = dy @ W_down^T. A = dy [M,K]; B = W_down [I,K]
//     (major_b=k) or [K,I] (major_b=mn); N = I.
//   - gemm: C[M,N] = A @ B. A is [M,K] (major_a=k) or [K,M] (major_a=mn), B
//     is [N,K] (major_b=k) or [K,N] (major_b=mn), C is [M,N]. The MLP's
//     weight gradients and dx are gemms:
//     dW_down = out^T @ dy: M=I, N=K, K=M(tokens); A = out^T, and out
//     [M,I] is A stored [K,M], so major_a=mn; B = dy [M,K] is B stored
//     [K,N], major_b=mn.
//     dx = grad_de @ W^T: M=M, N=K, K=2I; A = grad_de [M,2I], major_a=k;
//     B = W^T, so W [K,2I] is B stored [N,K], major_b=k, and the
//     nn.Linear layout W [2I,K] is B stored [K,N], major_b=mn.
//     dW = x^T @ grad_de: M=K, N=2I, K=M(tokens); A = x^T with x [M,K]
//     stored [K,M], major_a=mn; B = grad_de [M,2I] stored [K,N],
//     major_b=mn. (dW^T, the nn.Linear layout, is grad_de^T @ x: both
//     operands mn as well, M=2I, N=K.)
//   - fwd_gateup: de = x @ W. A = x [M,K]; W is [K,2I] logically, stored
//     [2I,K] (major_b=k, nn.Linear) or [K,2I] (major_b=mn). One tile covers
//     TileN/2 output columns n..n+TileN/2 of out: its B tile is rows
//     n.. of W's left half then rows I+n.. of its gate half, so accumulator
//     column j < TileN/2 is left[n+j] and TileN/2+j is gate[n+j].
//   - fwd_down: y = out @ W_down (+ residual). A = out [M,I] (the GEMM's
//     K is I); B = W_down [I,K] is B stored [K,N] (major_b=mn), or W_down
//     stored [K,I] (nn.Linear's down_proj) is major_b=k; N = K (model).
func sm90KindOf(c tiling.Config) (sm90Kind, error) {
	switch c.Kernel {
	case tiling.KernelBwdDSwiGLU:
		return sm90Kind{halves: 1, apply: applyBwd}, nil
	case tiling.KernelGEMM:
		return sm90Kind{halves: 1, apply: applyGemm}, nil
	case tiling.KernelFwdGateUp:
		return sm90Kind{halves: 2, apply: applyGateUp}, nil
	case tiling.KernelFwdDown:
		return sm90Kind{halves: 1, apply: applyDown}, nil
	}
	return sm90Kind{}, fmt.Errorf("view: %s: kernel %q has no sm_90a view", c.Name(), c.Kernel)
}

// requireKMajorA rejects an MN-major A for the kinds whose A is an
// activation stored [M,K] row-major (Validate says so too).
func requireKMajorA(c tiling.Config) error {
	if c.MajorA != tiling.KMajor {
		return fmt.Errorf("view: %s: major_a %q: %s reads its activation operand K-major only", c.Name(), c.MajorA, c.Kernel)
	}
	return nil
}

func applyBwd(v *SM90, c tiling.Config, sub int) error {
	if err := requireKMajorA(c); err != nil {
		return err
	}
	v.IsBwd, v.NName, v.EpiLoads = true, "I", true
	v.EpiLoadDoc = "left and gate sub-tiles of de"
	v.EpiGateOff = sub
	if c.StoreOut {
		v.EpiOutOff = 2 * sub
	}
	v.EpiTxBytes = 2 * sub
	return nil
}

func applyGemm(v *SM90, c tiling.Config, sub int) error {
	v.IsGemm, v.NName, v.EpiStoreOnly = true, "N", true
	return nil
}

func applyGateUp(v *SM90, c tiling.Config, sub int) error {
	if err := requireKMajorA(c); err != nil {
		return err
	}
	v.IsGateUp, v.NName, v.EpiStoreOnly = true, "I", true
	// Gate column 0 of the accumulator is column TileN/2: 8-column groups
	// hold 4 registers each.
	v.GateAcc = c.TileN / 2 / 8 * 4
	v.EpiOutOff = 0
	if c.StoreOut {
		v.EpiLeftOff, v.EpiGateOff = sub, 2*sub
	}
	return nil
}

func applyDown(v *SM90, c tiling.Config, sub int) error {
	if err := requireKMajorA(c); err != nil {
		return err
	}
	v.IsDown, v.NName = true, "N"
	v.Residual = c.Residual
	if c.Residual {
		v.EpiLoads = true
		v.EpiLoadDoc = "residual sub-tiles"
		v.EpiTxBytes = sub
	} else {
		v.EpiStoreOnly = true
	}
	return nil
}
