package launch

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// Args are one launch's problem sizes and device buffers: a Call, or the
// typed arguments of one kernel kind (BwdArgs, GemmArgs, FwdGateUpArgs,
// FwdDownArgs), which name the manifest's sizes and buffers as fields.
type Args interface {
	// call returns the kind the arguments are for ("" for any) and the
	// sizes and buffers by the manifest's names.
	call() (tiling.Kernel, Call)
}

// Call is the arguments of a launch of any kind, by the names the
// manifest uses (Manifest.Sizes, Manifest.Buffers).
type Call struct {
	Sizes   manifest.Sizes
	Buffers map[string]cu.DevicePtr
	Stream  *cu.Stream
}

func (c Call) call() (tiling.Kernel, Call) { return "", c }

// BwdArgs are the device buffers and sizes of one bwd_dswiglu call. All
// tensors are row-major; WDown is [I,K] (major_b=k) or [K,I] (major_b=mn);
// Out is used only by configs with StoreOut. Workspace, optional, is device
// scratch for the unfused path's dout (Unfused.WorkspaceBytes); left 0, the
// path uses its own (allocated once per size, freed by Dispatch.Close).
// The fused kernel does not use it.
type BwdArgs struct {
	M, K, I                    int
	Dy, WDown, De, GradDe, Out cu.DevicePtr
	Workspace                  cu.DevicePtr
	Stream                     *cu.Stream
}

func (a BwdArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelBwdDSwiGLU, Call{Sizes: manifest.Sizes{"M": a.M, "K": a.K, "I": a.I}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"dy": a.Dy, "W_down": a.WDown, "de": a.De, "grad_de": a.GradDe, "out": a.Out}}
}

// GemmArgs are the device buffers and sizes of one gemm call C = A @ B,
// all row-major: A is [M,K] (major_a=k) or [K,M] (major_a=mn), B is [N,K]
// (major_b=k) or [K,N] (major_b=mn), C is [M,N] in the operand type.
type GemmArgs struct {
	M, N, K int
	A, B, C cu.DevicePtr
	Stream  *cu.Stream
}

func (a GemmArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelGEMM, Call{Sizes: manifest.Sizes{"M": a.M, "N": a.N, "K": a.K}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"A": a.A, "B": a.B, "C": a.C}}
}

// FwdGateUpArgs are the device buffers and sizes of one fwd_gateup call
// de = x @ W, out = left*silu(gate), all row-major: X [M,K]; W [2I,K]
// (major_b=k, nn.Linear's layout: left rows then gate rows) or [K,2I]
// (major_b=mn); Out [M,I]; De [M,2I] = [left | gate], written only by
// configs with StoreOut (training) and ignored otherwise. Workspace,
// optional, is device scratch for the unfused path's de without StoreOut
// (Unfused.WorkspaceBytes); left 0, the path uses its own. The fused
// kernel does not use it.
type FwdGateUpArgs struct {
	M, K, I       int
	X, W, De, Out cu.DevicePtr
	Workspace     cu.DevicePtr
	Stream        *cu.Stream
}

func (a FwdGateUpArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelFwdGateUp, Call{Sizes: manifest.Sizes{"M": a.M, "K": a.K, "I": a.I}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"x": a.X, "W": a.W, "de": a.De, "out": a.Out}}
}

// FwdDownArgs are the device buffers and sizes of one fwd_down call
// y = out @ W_down (+ residual), all row-major: Out [M,I]; WDown [I,K]
// (major_b=mn: this GEMM's B with N=K contiguous) or [K,I] (major_b=k,
// nn.Linear's down_proj layout); Y [M,K]; Residual [M,K], read only by
// configs with Residual and ignored otherwise.
type FwdDownArgs struct {
	M, K, I                 int
	Out, WDown, Residual, Y cu.DevicePtr
	Stream                  *cu.Stream
}

func (a FwdDownArgs) call() (tiling.Kernel, Call) {
	return tiling.KernelFwdDown, Call{Sizes: manifest.Sizes{"M": a.M, "K": a.K, "I": a.I}, Stream: a.Stream,
		Buffers: map[string]cu.DevicePtr{"out": a.Out, "W_down": a.WDown, "residual": a.Residual, "y": a.Y}}
}

// CheckShape checks a's sizes against the shape rules of cfg's kernel
// (TMA's 16-byte row pitches and the kernel's own), before anything is
// built or allocated. The error lists every violation.
func CheckShape(cfg tiling.Config, a Args) error {
	k, err := tiling.Check(cfg)
	if err != nil {
		return fmt.Errorf("launch: check shape: %w", err)
	}
	m, err := manifest.New(k)
	if err != nil {
		return fmt.Errorf("launch: check shape: %w", err)
	}
	_, c := a.call()
	if err := m.CheckSizes(c.Sizes); err != nil {
		return fmt.Errorf("launch: %s: %w", m.Name, err)
	}
	return nil
}
