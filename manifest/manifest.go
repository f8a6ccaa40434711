// Package manifest is the launch contract of swigen kernels, owned in one
// place: the kernel's parameter table (which the template renders the
// kernel signature from), its tensor maps with their boxes, the shape
// rules, the grid rule and the trace layout. gen writes a Manifest next to
// every kernel as <name>.json; runtime/launch launches from the manifest
// alone, and so can a loader in another language: every size is an Expr
// of the problem sizes, every tensor map names its source buffer and
// carries each cuTensorMapEncodeTiled argument.
//
// The package imports tiling and the standard library only.
package manifest

import "github.com/swigen/swigen/tiling"

// Version is the manifest format; it changes when a field's meaning does.
// Version 2 carries the whole launch contract; the unversioned format
// before it listed the parameters' names and sizes only.
const Version = 2

// Manifest describes how to launch one rendered kernel.
type Manifest struct {
	Version    int           `json:"version"`
	Name       string        `json:"name"`
	Entry      string        `json:"entry"` // the kernel's symbol in the cubin
	Kernel     tiling.Kernel `json:"kernel"`
	Arch       tiling.Arch   `json:"arch"`
	Config     tiling.Config `json:"config"`
	ConfigHash string        `json:"config_hash"`
	// BlockThreads, ClusterDims and DynamicSmemBytes are the launch's
	// block (x), cluster and dynamic shared memory; the function's maximum
	// dynamic shared memory attribute must be raised to DynamicSmemBytes
	// before the first launch. A cluster of one CTA launches without the
	// cluster attribute.
	BlockThreads     int    `json:"block_threads"`
	ClusterDims      [3]int `json:"cluster_dims"`
	DynamicSmemBytes int    `json:"dynamic_smem_bytes"`
	// MaxCTAsPerSM, when above 0, is how many CTAs of the kernel may share
	// an SM: a loader asks the driver how many can
	// (cuOccupancyMaxActiveBlocksPerMultiprocessor with BlockThreads and
	// DynamicSmemBytes) and refuses a launch above it. sm_100a kernels set
	// it to the tensor-memory allocations an SM holds: a CTA beyond them
	// would block in tcgen05.alloc, and with clusters two clusters' CTAs
	// could wait for each other forever.
	MaxCTAsPerSM int `json:"max_ctas_per_sm,omitempty"`
	// Sizes names the problem sizes a caller gives (M, K, I or M, N, K).
	Sizes []string `json:"sizes"`
	// Buffers are the device buffers a caller gives, each row-major.
	Buffers []Buffer `json:"buffers"`
	// Params are the kernel's parameters in order.
	Params []Param `json:"params"`
	// ShapeRules must all hold for a launch's sizes.
	ShapeRules []Rule `json:"shape_rules"`
	Grid       Grid   `json:"grid"`
	// Probe names the probe the kernel is built with; empty for a product
	// kernel.
	Probe string `json:"probe,omitempty"`
	// Trace is the layout of the trace probe's record buffer (TraceSymbol),
	// for a kernel that has one.
	Trace *TraceLayout `json:"trace,omitempty"`
	// Boxes are the TMA boxes the tensor maps are encoded with, kept so the
	// view reads the boxes of the manifest it is given rather than
	// deriving them a second time. Not serialized: the tensor maps carry
	// them on the wire, so a manifest read back from JSON has none.
	Boxes Boxes `json:"-"`
}

// Buffer is one device buffer a launch reads or writes.
type Buffer struct {
	Name string `json:"name"`
	// Shape is the buffer's logical row-major shape, outermost first.
	Shape []Expr `json:"shape"`
	Doc   string `json:"doc"`
}

// Kind is a kernel parameter's kind.
type Kind string

// Parameter kinds.
const (
	// KindTensorMap is a 128-byte CUtensorMap passed by value
	// (const __grid_constant__), 64-byte aligned; Param.Map says how to
	// encode it.
	KindTensorMap Kind = "tensormap"
	// KindI32 is a 32-bit signed integer; Param.Value is its value.
	KindI32 Kind = "i32"
	// KindI64 is a 64-bit signed integer (8 bytes, 8-aligned); Param.Value
	// is its value.
	KindI64 Kind = "i64"
	// KindPtr is a device pointer (8 bytes, 8-aligned) to the caller's
	// buffer Param.Buffer: the address itself, for a kernel that reads a
	// buffer without a tensor map (a grouped kind's per-group offsets).
	KindPtr Kind = "ptr"
	// KindWorkspace is a device pointer (8 bytes, 8-aligned) to scratch
	// memory the loader owns and sizes by Param.Workspace: callers never
	// pass it.
	KindWorkspace Kind = "workspace"
)

// GridSymbol is the name under which a workspace's size expressions see
// the launch's grid (gridDim.x, the CTAs launched), next to the sizes.
const GridSymbol = "grid"

// Workspace is the scratch memory of a KindWorkspace parameter. A loader
// allocates it (at least Bytes, aligned to Align) once per size and reuses
// it; the first ZeroBytes bytes are zeroed once, when it is allocated, and
// are the kernel's from then on: state it keeps valid for the next launch
// on the workspace (stream-K's flags and epoch header), so a workspace is
// reused by launches that run one after the other (one stream). Launches
// that may overlap need a workspace each.
type Workspace struct {
	// Bytes and ZeroBytes are expressions of the sizes and GridSymbol.
	Bytes     Expr `json:"bytes"`
	Align     int  `json:"align"`
	ZeroBytes Expr `json:"zero_bytes"`
}

// Param is one kernel parameter.
type Param struct {
	Name  string `json:"name"` // the C parameter name
	Kind  Kind   `json:"kind"`
	Size  int    `json:"size"`  // bytes
	Align int    `json:"align"` // bytes
	Doc   string `json:"doc"`
	// Map is set for KindTensorMap.
	Map *TensorMap `json:"map,omitempty"`
	// Value is set for KindI32 and KindI64.
	Value Expr `json:"value,omitempty"`
	// Buffer is set for KindPtr: the Buffer whose address is passed.
	Buffer string `json:"buffer,omitempty"`
	// Workspace is set for KindWorkspace.
	Workspace *Workspace `json:"workspace,omitempty"`
}

// kindSizes is each parameter kind's size in bytes (also its alignment,
// but for a tensor map's 64).
var kindSizes = map[Kind]int{KindTensorMap: 128, KindI32: 4, KindI64: 8, KindPtr: 8, KindWorkspace: 8}

// kindList is the parameter kinds as messages list them.
const kindList = "tensormap, i32, i64, ptr or workspace"

// TensorMap is how to encode one tensor map: the arguments of
// cuTensorMapEncodeTiled, sizes as expressions of the problem sizes. Every
// array is innermost dimension first, as the driver takes it.
type TensorMap struct {
	// Buffer names the Buffer whose address is the global address.
	Buffer    string `json:"buffer"`
	DType     DType  `json:"dtype"`
	ElemBytes int    `json:"elem_bytes"`
	// Dims are the elements per dimension: the view of Buffer the kernel
	// loads through (de [M,2I] as [M][2][I]: dims I, 2, M).
	Dims []Expr `json:"dims"`
	// Strides are the byte strides of dimensions 1..rank-1.
	Strides     []Expr      `json:"strides"`
	Box         []int       `json:"box"`
	ElemStrides []int       `json:"elem_strides"`
	Interleave  Interleave  `json:"interleave"`
	Swizzle     Swizzle     `json:"swizzle"`
	L2Promotion L2Promotion `json:"l2_promotion"`
	OOBFill     OOBFill     `json:"oob_fill"`
}

// Rank is the map's number of dimensions.
func (t *TensorMap) Rank() int { return len(t.Dims) }

// DType is a tensor map's element type: the CUtensorMapDataType whose
// enumerator is CU_TENSOR_MAP_DATA_TYPE_ followed by the upper-cased name
// (tiling.DTypeSpec.TMA of the config's operand type: "bfloat16",
// "float16").
type DType string

// Swizzle is a CUtensorMapSwizzle: CU_TENSOR_MAP_SWIZZLE_ followed by the
// upper-cased name.
type Swizzle string

// Swizzle modes swigen kernels use.
const (
	SwizzleNone Swizzle = "none"
	Swizzle64B  Swizzle = "64B"
	Swizzle128B Swizzle = "128B"
)

// Interleave is a CUtensorMapInterleave: CU_TENSOR_MAP_INTERLEAVE_
// followed by the upper-cased name.
type Interleave string

// InterleaveNone is the only interleave swigen kernels use.
const InterleaveNone Interleave = "none"

// L2Promotion is a CUtensorMapL2promotion: CU_TENSOR_MAP_L2_PROMOTION_
// followed by the upper-cased name ("L2_256B").
type L2Promotion string

// L2 promotions swigen kernels use.
const (
	L2PromotionNone L2Promotion = "none"
	L2Promotion256B L2Promotion = "L2_256B"
)

// OOBFill is a CUtensorMapFloatOOBfill: CU_TENSOR_MAP_FLOAT_OOB_FILL_
// followed by the upper-cased name. "none" fills out-of-bounds elements
// with zeros, which the kernels rely on for ragged K.
type OOBFill string

// OOBFillNone is the only fill swigen kernels use.
const OOBFillNone OOBFill = "none"
