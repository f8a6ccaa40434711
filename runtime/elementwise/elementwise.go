// Package elementwise holds swigen's two standalone elementwise kernels,
// the second half of each unfused path: dSwiGLU (bwd_dswiglu's epilogue:
// grad_de and optionally out from dout and de) and SwiGLU (fwd_gateup's:
// out from de). After cuBLAS's GEMM they are the baselines the fused
// kernels are measured against; after swigen's gemm kernel they are the
// dispatch plan's unfused path, shipped in emitted packages like any
// kernel. It is the one owner of their entry points and launch rule
// (Spec), which a loader in another language reads from the manifest;
// their CUDA text is templates/kernelsrc's.
package elementwise

import (
	"fmt"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/templates/kernelsrc"
	"github.com/swigen/swigen/tiling"
)

// ModuleName names the module's compile unit (and the emitted cubin).
const ModuleName = kernelsrc.ElementwiseModule

// Source is the CUDA source of the module (templates/kernelsrc, its
// text's owner): the shared prelude of types and conversions, then both
// kernels, one compile unit.
func Source() []byte { return kernelsrc.Elementwise() }

// Op is one of the module's two kernels.
type Op string

// The ops.
const (
	// DSwiGLU reads dout [M,I] and de = [left|gate] [M,2I], writes
	// grad_de [M,2I] and, unless its pointer is null, out [M,I].
	DSwiGLU Op = "dswiglu"
	// SwiGLU reads de = [left|gate] [M,2I], writes out [M,I].
	SwiGLU Op = "swiglu"
)

// Entry is the entry point of op for dtype dt: the 16-byte path (vec) or
// the scalar one.
func Entry(op Op, dt tiling.DType, vec bool) string {
	v := "scalar"
	if vec {
		v = "vec8"
	}
	return fmt.Sprintf("swigen_%s_%s_%s", op, dt, v)
}

// Entries lists every entry point of the module.
func Entries() []string {
	var es []string
	for _, op := range []Op{DSwiGLU, SwiGLU} {
		for _, dt := range tiling.DTypes() {
			for _, vec := range []bool{true, false} {
				es = append(es, Entry(op, dt, vec))
			}
		}
	}
	return es
}

// The launch rule (Spec documents it for other loaders).
const (
	// Block is the threads per block of every entry.
	Block = 256
	// BlocksPerSM caps the grid-stride grid at 8 waves of full-occupancy
	// 256-thread blocks: enough bytes in flight to saturate HBM, few
	// enough blocks that launch overhead stays negligible.
	BlocksPerSM = 64
)

// Launch is one launch of an op: its entry point and grid (Block
// threads per block).
type Launch struct {
	Entry string
	Grid  uint32
}

// Plan decides op's launch for dtype dt at M x I with the given buffer
// pointers (null ones, such as dSwiGLU's optional out, are ignored): the
// 16-byte path when I % 8 == 0 and every pointer is 16-byte aligned
// (then every row of every buffer is), else the scalar one; the grid is
// one thread per item (8 elements on the 16-byte path), at most
// BlocksPerSM blocks per SM.
func Plan(op Op, dt tiling.DType, M, I int, ptrs []cu.DevicePtr, sms int) (Launch, error) {
	const maxInt32 = 1<<31 - 1
	if op != DSwiGLU && op != SwiGLU {
		return Launch{}, fmt.Errorf("elementwise: op %q: want %s or %s", op, DSwiGLU, SwiGLU)
	}
	if _, err := dt.HelperSpec("elementwise: " + string(op)); err != nil {
		return Launch{}, err
	}
	if M <= 0 || I <= 0 || M > maxInt32 || I > maxInt32 {
		return Launch{}, fmt.Errorf("elementwise: %s M=%d I=%d: sizes must be in [1, 2^31)", op, M, I)
	}
	vec := I%8 == 0
	for _, p := range ptrs {
		if p%16 != 0 {
			vec = false
		}
	}
	items := uint64(M) * uint64(I)
	if vec {
		items /= 8
	}
	blocks := (items + Block - 1) / Block
	return Launch{Entry: Entry(op, dt, vec), Grid: uint32(min(blocks, uint64(max(sms, 1)*BlocksPerSM)))}, nil
}
