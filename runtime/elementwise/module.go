package elementwise

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// Compiler compiles a CUDA source to a cubin (launch.Compiler and the
// toolchain's build cache satisfy it).
type Compiler interface {
	CompileCUDA(ctx context.Context, name string, src []byte, arch tiling.Arch) ([]byte, error)
}

// Module is the elementwise module loaded on one context.
type Module struct {
	ctx *cu.Context
	mod *cu.Module
	fns map[string]*cu.Function
	sms int
}

// Compile compiles Source for arch with tc and loads it into cctx.
func Compile(ctx context.Context, cctx *cu.Context, tc Compiler, arch tiling.Arch) (*Module, error) {
	if cctx == nil || tc == nil {
		return nil, fmt.Errorf("elementwise: compile: nil context or compiler")
	}
	cubin, err := tc.CompileCUDA(ctx, ModuleName, Source(), arch)
	if err != nil {
		return nil, fmt.Errorf("elementwise: compile: %w", err)
	}
	return Load(cctx, cubin)
}

// Load loads a cubin of Source (an emitted package embeds one) into ctx
// and looks up every entry point. On any error nothing stays loaded.
func Load(ctx *cu.Context, cubin []byte) (*Module, error) {
	if ctx == nil || len(cubin) == 0 {
		return nil, fmt.Errorf("elementwise: load: nil context or empty cubin")
	}
	mod, err := ctx.LoadModule(cubin)
	if err != nil {
		return nil, fmt.Errorf("elementwise: load: %w", err)
	}
	m := &Module{ctx: ctx, mod: mod, fns: map[string]*cu.Function{}}
	for _, e := range Entries() {
		f, err := mod.Function(e)
		if err != nil {
			_ = mod.Unload()
			return nil, fmt.Errorf("elementwise: load: %w", err)
		}
		m.fns[e] = f
	}
	if m.sms, err = ctx.Device().Attribute(cu.AttrMultiprocessorCount); err != nil || m.sms <= 0 {
		m.sms = 132 // H100/H200; only sizes the grid
	}
	return m, nil
}

// Close unloads the module.
func (m *Module) Close() error {
	if m == nil || m.mod == nil {
		return nil
	}
	err := m.mod.Unload()
	m.mod = nil
	return err
}

// DSwiGLU launches grad_de [M,2I] and, unless out is 0, out [M,I] from
// dout [M,I] and de = [left|gate] [M,2I], all dt, on stream (nil: the
// default stream). Asynchronous.
func (m *Module) DSwiGLU(dt tiling.DType, M, I int, dout, de, gradDe, out cu.DevicePtr, stream *cu.Stream) error {
	if dout == 0 || de == 0 || gradDe == 0 {
		return fmt.Errorf("elementwise: dswiglu: null dout, de or grad_de pointer")
	}
	l, err := m.plan(DSwiGLU, dt, M, I, []cu.DevicePtr{dout, de, gradDe, out})
	if err != nil {
		return err
	}
	mi, ii := int32(M), int32(I)
	return m.launch(l, stream, unsafe.Pointer(&dout), unsafe.Pointer(&de), unsafe.Pointer(&gradDe), unsafe.Pointer(&out),
		unsafe.Pointer(&mi), unsafe.Pointer(&ii))
}

// SwiGLU launches out [M,I] = left*silu(gate) from de = [left|gate]
// [M,2I], both dt, on stream (nil: the default stream). Asynchronous.
func (m *Module) SwiGLU(dt tiling.DType, M, I int, de, out cu.DevicePtr, stream *cu.Stream) error {
	if de == 0 || out == 0 {
		return fmt.Errorf("elementwise: swiglu: null de or out pointer")
	}
	l, err := m.plan(SwiGLU, dt, M, I, []cu.DevicePtr{de, out})
	if err != nil {
		return err
	}
	mi, ii := int32(M), int32(I)
	return m.launch(l, stream, unsafe.Pointer(&de), unsafe.Pointer(&out), unsafe.Pointer(&mi), unsafe.Pointer(&ii))
}

func (m *Module) plan(op Op, dt tiling.DType, M, I int, ptrs []cu.DevicePtr) (Launch, error) {
	if m == nil || m.mod == nil {
		return Launch{}, fmt.Errorf("elementwise: %s: module not loaded", op)
	}
	return Plan(op, dt, M, I, ptrs, m.sms)
}

func (m *Module) launch(l Launch, stream *cu.Stream, args ...unsafe.Pointer) error {
	return m.ctx.Launch(m.fns[l.Entry], cu.LaunchConfig{Grid: [3]uint32{l.Grid, 1, 1}, Block: [3]uint32{Block, 1, 1}, Stream: stream}, args...)
}
