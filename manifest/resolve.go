package manifest

import (
	"fmt"
	"math"
)

// Device is what a launch's grid depends on: the multiprocessor count and
// the clusters of the kernel's shape that fit at once (needed only where
// the manifest CapsByClusters).
type Device struct {
	SMs      int
	Clusters int
}

// Launch is a manifest resolved for one problem: every argument of the
// driver calls with its expressions evaluated.
type Launch struct {
	// Args are the kernel's parameters in order.
	Args []Arg
	// Grid, Block and Cluster are the launch's dims; Cluster is zero where
	// the kernel launches without the cluster attribute (one CTA).
	Grid, Block, Cluster [3]int
	SmemBytes            int
}

// Arg is one resolved kernel parameter: a tensor map to encode, an
// integer, or a device pointer (a caller's buffer or the loader's
// workspace) whose address the loader sets in Ptr before Pack.
type Arg struct {
	Param   string
	Kind    Kind
	Map     *Encode // KindTensorMap
	Value   int32   // KindI32
	Value64 int64   // KindI64
	// Buffer is the buffer whose address a KindPtr passes.
	Buffer string
	// Workspace is the size a KindWorkspace needs at this launch.
	Workspace *WorkspaceSize
	// Ptr is the address of a KindPtr or KindWorkspace argument: zero as
	// Resolve returns it, set by the loader.
	Ptr uint64
}

// WorkspaceSize is a workspace evaluated for one launch: at least Bytes,
// aligned to Align, its first ZeroBytes zero when the launch starts.
type WorkspaceSize struct {
	Bytes, ZeroBytes int64
	Align            int
}

// Encode is one cuTensorMapEncodeTiled call; the global address is
// Buffer's.
type Encode struct {
	Buffer      string
	DType       DType
	Dims        []uint64
	Strides     []uint64
	Box         []uint32
	ElemStrides []uint32
	Interleave  Interleave
	Swizzle     Swizzle
	L2Promotion L2Promotion
	OOBFill     OOBFill
}

// Resolve checks s against the shape rules and evaluates every parameter
// and the launch dims for s on dev.
func (m *Manifest) Resolve(s Sizes, dev Device) (Launch, error) {
	if err := m.CheckSizes(s); err != nil {
		return Launch{}, err
	}
	l := Launch{Block: [3]int{m.BlockThreads, 1, 1}, SmemBytes: m.DynamicSmemBytes}
	g, err := m.GridCTAs(s, dev.SMs, dev.Clusters)
	if err != nil {
		return Launch{}, err
	}
	l.Grid = [3]int{g, 1, 1}
	for i := range m.Params {
		a, err := m.Params[i].resolve(s, g)
		if err != nil {
			return Launch{}, err
		}
		l.Args = append(l.Args, a)
	}
	if m.clusterSize() > 1 {
		l.Cluster = [3]int{m.ClusterDims[0], m.ClusterDims[1], 1}
	}
	return l, nil
}

// resolve evaluates p for sizes s on a grid of grid CTAs.
func (p *Param) resolve(s Sizes, grid int) (Arg, error) {
	a := Arg{Param: p.Name, Kind: p.Kind}
	switch p.Kind {
	case KindTensorMap:
		if p.Map == nil {
			return Arg{}, fmt.Errorf("manifest: parameter %s: a tensormap without a map", p.Name)
		}
		e, err := p.Map.resolve(s)
		if err != nil {
			return Arg{}, fmt.Errorf("manifest: parameter %s: %w", p.Name, err)
		}
		a.Map = e
	case KindI32:
		v, err := p.Value.Eval(s)
		if err != nil {
			return Arg{}, fmt.Errorf("manifest: parameter %s: %w", p.Name, err)
		}
		if v < math.MinInt32 || v > math.MaxInt32 {
			return Arg{}, fmt.Errorf("manifest: parameter %s = %s = %d: out of the i32 range", p.Name, p.Value, v)
		}
		a.Value = int32(v)
	case KindI64:
		v, err := p.Value.Eval(s)
		if err != nil {
			return Arg{}, fmt.Errorf("manifest: parameter %s: %w", p.Name, err)
		}
		a.Value64 = v
	case KindPtr:
		if p.Buffer == "" {
			return Arg{}, fmt.Errorf("manifest: parameter %s: a ptr without a buffer", p.Name)
		}
		a.Buffer = p.Buffer
	case KindWorkspace:
		w, err := p.Workspace.resolve(s, grid)
		if err != nil {
			return Arg{}, fmt.Errorf("manifest: parameter %s: %w", p.Name, err)
		}
		a.Workspace = w
	default:
		return Arg{}, fmt.Errorf("manifest: parameter %s: kind %q: want %s", p.Name, p.Kind, kindList)
	}
	return a, nil
}

// resolve evaluates w's sizes with the grid as GridSymbol.
func (w *Workspace) resolve(s Sizes, grid int) (*WorkspaceSize, error) {
	if w == nil {
		return nil, fmt.Errorf("a workspace without its size")
	}
	if w.Align < 1 || w.Align&(w.Align-1) != 0 {
		return nil, fmt.Errorf("workspace alignment %d: want a power of two", w.Align)
	}
	sg := make(Sizes, len(s)+1)
	for k, v := range s {
		sg[k] = v
	}
	sg[GridSymbol] = grid
	b, err := w.Bytes.Eval(sg)
	if err != nil {
		return nil, err
	}
	z, err := w.ZeroBytes.Eval(sg)
	if err != nil {
		return nil, err
	}
	if b < 1 || z < 0 || z > b {
		return nil, fmt.Errorf("workspace of %s = %d bytes, %s = %d of them zeroed: want 1 or more bytes, 0 to all of them zeroed", w.Bytes, b, w.ZeroBytes, z)
	}
	return &WorkspaceSize{Bytes: b, ZeroBytes: z, Align: w.Align}, nil
}

func (t *TensorMap) resolve(s Sizes) (*Encode, error) {
	r := t.Rank()
	if len(t.Strides) != r-1 || len(t.Box) != r || len(t.ElemStrides) != r {
		return nil, fmt.Errorf("map of %s: rank %d with %d strides, %d box and %d element-stride entries", t.Buffer, r, len(t.Strides), len(t.Box), len(t.ElemStrides))
	}
	e := &Encode{Buffer: t.Buffer, DType: t.DType, Interleave: t.Interleave, Swizzle: t.Swizzle, L2Promotion: t.L2Promotion, OOBFill: t.OOBFill}
	var err error
	if e.Dims, err = evalAll(t.Dims, s); err != nil {
		return nil, err
	}
	if e.Strides, err = evalAll(t.Strides, s); err != nil {
		return nil, err
	}
	for i := range t.Box {
		if t.Box[i] < 0 || t.ElemStrides[i] < 0 {
			return nil, fmt.Errorf("map of %s: box %v, element strides %v: negative", t.Buffer, t.Box, t.ElemStrides)
		}
		e.Box = append(e.Box, uint32(t.Box[i]))
		e.ElemStrides = append(e.ElemStrides, uint32(t.ElemStrides[i]))
	}
	return e, nil
}

// evalAll evaluates non-negative sizes.
func evalAll(es []Expr, s Sizes) ([]uint64, error) {
	out := make([]uint64, len(es))
	for i, e := range es {
		v, err := e.Eval(s)
		if err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, fmt.Errorf("%s = %d: negative", e, v)
		}
		out[i] = uint64(v)
	}
	return out, nil
}
