// Package view computes the typed data a kernel template receives: one
// view per arch (SM90, SM100), each a tree of small structs by concern
// (schedule, tile, operand loads, cluster, epilogue, descriptors), built by
// small functions from a tiling.Config and its manifest. Every offset,
// byte count and trip count is computed here; templates only substitute.
//
// The view owns none of the facts the host must agree with: the
// shared-memory layout (offsets, barrier map) is tiling's Config.Smem, the
// kernel's name, block size and parameters are the manifest's, and the TMA
// boxes are manifest.BoxesOf. What the view adds is how the kernel walks
// them: the load lists, the tensor-core descriptors, the register split.
package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
)

// Hang bounds every mbarrier wait of a kernel: a wait that lasts longer
// traps, so a protocol bug fails the launch instead of hanging the process.
type Hang struct {
	TimeoutMs int
	TimeoutNs int64
}

// defaultHangTimeoutMs is far above any legitimate wait of a kernel that
// runs for milliseconds, far below a human's patience.
const defaultHangTimeoutMs = 4000

func defaultHang() Hang {
	return Hang{TimeoutMs: defaultHangTimeoutMs, TimeoutNs: defaultHangTimeoutMs * 1_000_000}
}

// Kind says which kernel kind a view renders: exactly one switch is true,
// and the skeleton templates pick the kind's partials by them (a template
// calls another by constant name only).
type Kind struct {
	Bwd, Gemm, GateUp, Down bool
	// NName names the kernel's output-column size parameter: I
	// (bwd_dswiglu, fwd_gateup) or N (gemm, fwd_down).
	NName string
}

// kindOf returns the kind switches of c and how many halves its B tile
// has: fwd_gateup loads the left and the gate rows of W as two halves.
//
// The kinds and how each GEMM operand maps onto the MLP tensors
// (docs/DESIGN.md#math-and-conventions; "K-major": the reduction dimension is contiguous):
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
func kindOf(c tiling.Config) (Kind, int, error) {
	s, reg := tiling.KindOf(c.Kernel)
	k, ok := kindFlags(s.Family)
	if !ok || !reg {
		return Kind{}, 0, fmt.Errorf("view: kernel %q has no view (template family %q: want bwd, gateup, down or gemm)", c.Kernel, s.Family)
	}
	k.NName = s.NName
	if s.Paired {
		return k, 2, nil
	}
	return k, 1, nil
}

// kindFlags is the switch a template family (tiling.KindSpec.Family)
// sets; ok is false for an unknown family.
func kindFlags(family string) (k Kind, ok bool) {
	switch family {
	case "bwd":
		return Kind{Bwd: true}, true
	case "gemm":
		return Kind{Gemm: true}, true
	case "gateup":
		return Kind{GateUp: true}, true
	case "down":
		return Kind{Down: true}, true
	}
	return Kind{}, false
}

// Elem names the element type for the templates: its PTX type, the
// helpers that unpack a 32-bit pair to fp32 and pack it back, and Trait,
// the operand-type struct of the CUDA library (swigen_v1_sm90a.cuh) that
// a thin unit's traits name. Bytes (the element size) and MMAK (the K of
// one MMA instruction) size the walks the view computes; every field is
// the config's tiling.DTypeSpec's.
type Elem struct {
	PTX, Unpack, Pack string
	Trait             string
	Bytes, MMAK       int
}

func elemOf(c tiling.Config) (Elem, error) {
	d, err := c.DType.Spec()
	if err != nil {
		return Elem{}, fmt.Errorf("view: %w", err)
	}
	return Elem{PTX: d.PTX, Unpack: d.Unpack, Pack: d.Pack, Trait: d.Trait, Bytes: d.Bytes, MMAK: d.MMAK}, nil
}

// Tile is the output tile and its walk.
type Tile struct {
	// M, N and K are the MMA tile: N is the accumulator's columns; NOut
	// the output columns one tile covers, N except for fwd_gateup, whose
	// accumulator holds N/2 left columns then the N/2 matching gate ones.
	M, N, K, NOut int
	// K16 is the k16 steps of one stage; NB the epilogue sub-tiles of one
	// tile (epilogue-width columns each), and SubCol their first columns
	// in the tile: nb*epiN, except that a tile whose width is not a
	// multiple of epiN ends with the sub-tile of its last epiN columns,
	// which overlaps the one before it (both store the same values there).
	K16, NB int
	SubCol  string
	// SwizzleGroup and Func order the tiles: Func is the device function
	// that maps a work unit to its tile (raster m or n); RasterN says
	// which to a thin unit's traits.
	SwizzleGroup int
	Func         string
	RasterN      bool
}

// newTile is the tile of c in element type e with halves B halves and
// epilogue sub-tiles epiN columns wide; tiling.Check makes TileN a
// multiple of epiN*halves, except for the sm_90a gemm, whose TileN need
// only be at least epiN.
func newTile(c tiling.Config, e Elem, halves, epiN int) Tile {
	t := Tile{M: c.TileM, N: c.TileN, K: c.TileK, NOut: c.TileN / halves, K16: c.TileK / e.MMAK,
		SwizzleGroup: c.SwizzleGroup, Func: "sw_tile_raster_m"}
	t.NB = (t.NOut + epiN - 1) / epiN
	cols := make([]int, t.NB)
	for nb := range cols {
		cols[nb] = min(nb*epiN, t.NOut-epiN)
	}
	t.SubCol = join.Ints(cols)
	if c.Raster == tiling.RasterN {
		t.Func, t.RasterN = "sw_tile_raster_n", true
	}
	return t
}

// Epilogue is what the epilogues of both archs share: the slot layout of
// the kind's tensors and what the slot is filled with.
type Epilogue struct {
	// Stages is the depth of the epilogue ring; a slot holds SlotBytes, one
	// sub-tile buffer (tiling's EpilogueSlot) per tensor, the kind's at
	// GateOff, OutOff and LeftOff.
	Stages, SlotBytes        int
	GateOff, OutOff, LeftOff int
	// Loads: a producer warp TMA-loads an epilogue operand per sub-tile
	// (bwd_dswiglu: de; fwd_down: the residual), LoadDoc, TxBytes of it,
	// into the slot the epilogue then rewrites in place. StoreOnly: the
	// epilogue only stores, and guards its slots by waiting for the slot's
	// previous TMA store.
	Loads, StoreOnly bool
	LoadDoc          string
	TxBytes          int
	// StoreOut: the second output (bwd_dswiglu's out, fwd_gateup's de);
	// Residual: fwd_down adds the residual.
	StoreOut, Residual bool
	// FastSigmoid selects the tanh-based sigmoid; DSwiGLUFn is the
	// bwd_dswiglu epilogue's function.
	FastSigmoid bool
	DSwiGLUFn   string
	// Score (grouped kinds, tiling.Config.Score): the kernel reads a router
	// score per row (the score parameter) and scales its result by it; the
	// backward also writes the score's per-tile row partials (dscore_part).
	Score bool
}

// epilogueOf places the kind's tensors in an epilogue slot of buffers sub
// bytes each. The order within a slot is the templates': bwd_dswiglu left,
// gate[, out] (de is loaded into left and gate and rewritten as grad_de);
// fwd_gateup out[, left, gate]; gemm C; fwd_down y (the residual is loaded
// into it).
func epilogueOf(c tiling.Config, k Kind, sub int) Epilogue {
	e := Epilogue{Stages: c.EpiStages, SlotBytes: c.EpiTensors() * sub, StoreOut: c.StoreOut,
		FastSigmoid: c.FastSigmoid, DSwiGLUFn: "sw_dswiglu", Score: c.Score}
	if c.FastSigmoid {
		e.DSwiGLUFn = "sw_dswiglu_tanh"
	}
	switch {
	case k.Bwd:
		e.Loads, e.LoadDoc, e.TxBytes = true, "left and gate sub-tiles of de", 2*sub
		e.GateOff = sub
		if c.StoreOut {
			e.OutOff = 2 * sub
		}
	case k.GateUp:
		if c.StoreOut {
			e.LeftOff, e.GateOff = sub, 2*sub
		}
	case k.Down:
		e.Residual = c.Residual
		if c.Residual {
			e.Loads, e.LoadDoc, e.TxBytes = true, "residual sub-tiles", sub
		}
	}
	e.StoreOnly = !e.Loads
	return e
}

// Operand is how one GEMM operand (A or B) enters the operand ring: the
// TMA loads of a stage, each one box of the manifest's tensor map, and the
// descriptor the tensor cores read it with. The load lists are
// comma-separated constant arrays, one entry per load.
type Operand struct {
	Loads int // loads per stage
	// K is each load's k offset in the tile; MN its offset along M (A)
	// or N (B); Smem its byte offset in the operand's tile of the stage.
	K, MN, Smem string
	// Rank (sm_90a clusters): -1, every CTA loads its own; r, CTA r
	// loads this share and multicasts it to the cluster.
	Rank string
	// Halves (fwd_gateup's B): load i reads the left (Half[i] = 0) or the
	// gate half (1) of W, whose first row or column is NName past the left
	// one's.
	Halves bool
	Half   string
	// Func is the load helper the template calls (sm_90a, and B on
	// sm_100a): it knows the major and, on sm_90a, the L2 policy.
	Func string
	// Expert (B of a grouped kind whose experts are stacked along K,
	// tiling.KindSpec.ExpertsAlongK, on either arch, or read through a 3-D
	// expert map in either major, ExpertMapB, on sm_90a): the map is 3-D
	// [E][K][N] (MN-major) or [E][N][K] (K-major) and Func takes the tile's
	// expert as a last argument (b_expert, which the grouped scheduler's
	// producer defines).
	Expert bool
	// MNMajor: the operand is stored MN-major ([K,M] for A), a load is one
	// 64-wide slab of the tile; Trans is the descriptor's transpose flag
	// (0 or 1).
	MNMajor bool
	Trans   int
	// Desc is the shared-memory descriptor without its start address, a
	// hex literal; K16 the start-address offset of each k16 step and MB
	// (sm_90a A) of each 64-row wgmma block, in bytes.
	Desc, K16, MB string
	// ConsumerOff (sm_90a A): consumer c's rows start c*ConsumerOff bytes
	// into the A tile.
	ConsumerOff int
}

// loadList collects an operand's loads, one entry each, in issue order.
type loadList struct {
	k, mn, smem, rank, half []int
}

func (l *loadList) add(k, mn, smem, rank, half int) {
	l.k, l.mn, l.smem = append(l.k, k), append(l.mn, mn), append(l.smem, smem)
	l.rank, l.half = append(l.rank, rank), append(l.half, half)
}

// fill writes the lists into o; the ranks and halves only where a cluster
// shares the operand or the B tile has halves.
func (l *loadList) fill(o *Operand, ranks bool, halves int) {
	o.Loads, o.K, o.MN, o.Smem = len(l.k), join.Ints(l.k), join.Ints(l.mn), join.Ints(l.smem)
	if ranks {
		o.Rank = join.Ints(l.rank)
	}
	if halves > 1 {
		o.Halves, o.Half = true, join.Ints(l.half)
	}
}

// Hardware facts the layouts depend on (ptx.md §A2, §A7, §B4).
const (
	swizzleAtomBytes = 128  // one 128B-swizzle row (Elem.Bytes sized elements)
	swizzleRepeat    = 1024 // 8 rows of an atom
)

// boxRow is the elements of one swizzle row of a load of box, the box's
// innermost extent (manifest.BoxesOf), or an error naming the operand.
func boxRow(what string, box [3]int) (int, error) {
	if box[0] <= 0 {
		return 0, fmt.Errorf("view: %s box %v: want a positive innermost extent", what, box)
	}
	return box[0], nil
}

// kmajorK16 is the start-address offset of each MMA K step (k16 for the
// 16-bit types) of a K-major tile of rows rows in element type e, TileK
// tileK: steps of MMAK elements inside a 128-byte atom (four 32-byte steps
// for the 16-bit types), then the next atom (rows x 128 bytes on).
func kmajorK16(e Elem, tileK, rows int) []int {
	step := e.MMAK * e.Bytes
	perAtom := swizzleAtomBytes / step
	var out []int
	for k := 0; k < tileK/e.MMAK; k++ {
		out = append(out, (k/perAtom)*rows*swizzleAtomBytes+(k%perAtom)*step)
	}
	return out
}

// mnmajorK16 is the start-address offset of each MMA K step of an
// MN-major tile in element type e, TileK tileK: MMAK k-rows of 128 bytes.
func mnmajorK16(e Elem, tileK int) []int {
	var out []int
	for k := 0; k < tileK/e.MMAK; k++ {
		out = append(out, k*e.MMAK*swizzleAtomBytes)
	}
	return out
}

// regList is an inline-asm operand list of n fp32 registers of array arr
// with constraint con ("+f" or "=f"): the register list "{%0, ..., %n-1}"
// and the operands, in order.
func regList(n int, con, arr string) (list, operands string) {
	regs := make([]string, n)
	ops := make([]string, n)
	for i := range regs {
		regs[i] = "%" + strconv.Itoa(i)
		ops[i] = fmt.Sprintf(`"%s"(%s[%d])`, con, arr, i)
	}
	return "{" + strings.Join(regs, ", ") + "}", strings.Join(ops, ", ")
}

// configLines describes the config for the generated file's header, one
// field per line, in a fixed order.
func configLines(c tiling.Config) []string {
	lines := []string{
		fmt.Sprintf("kernel=%s arch=%s dtype=%s", c.Kernel, c.Arch, c.DType),
		fmt.Sprintf("tile=%dx%dx%d stages=%d cluster=%dx%d", c.TileM, c.TileN, c.TileK, c.Stages, c.ClusterM, c.ClusterN),
		fmt.Sprintf("schedule=%s scheduler=%s raster=%s swizzle_group=%d", c.Schedule, c.Scheduler, c.Raster, c.SwizzleGroup),
		fmt.Sprintf("epilogue=%dx%d epi_stages=%d major_a=%s major_b=%s store_out=%t", c.EpiM, c.EpiN, c.EpiStages, c.MajorA, c.MajorB, c.StoreOut),
	}
	if c.Residual {
		lines = append(lines, "residual=true")
	}
	if c.Score {
		lines = append(lines, "score=true")
	}
	return lines
}
