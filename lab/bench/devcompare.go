package bench

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/templates/kernelsrc"
	"github.com/swigen/swigen/tiling"
)

//go:embed compare.cu
var compareSourceBody []byte

// compareSource is the comparison kernel with the runtime kernels' prelude.
var compareSource = kernelsrc.WithPrelude(compareSourceBody)

// CompareSource returns the CUDA source of the device comparison.
func CompareSource() []byte { return append([]byte(nil), compareSource...) }

// Comparer compares two 16-bit device tensors on the GPU (compare.cu):
// the statistics of num.CompareRawBoth but the worst element's index,
// with no download of the tensors. It is loaded on one context.
type Comparer struct{ h *launch.Helper }

const (
	cmpBlock = 256
	// cmpBlocksPerSM: enough blocks to keep HBM busy, few atomics.
	cmpBlocksPerSM = 8
	// cmpResultBytes: two float64 sums and three uint64 counters.
	cmpResultBytes = 2*8 + 3*8
)

func compareEntry(dt tiling.DType) string { return "swigen_compare_" + string(dt) }

// NewComparer compiles compare.cu for sm_90a with tc and loads it.
func NewComparer(ctx *cu.Context, tc launch.Compiler) (*Comparer, error) {
	var entries []string
	for _, dt := range tiling.HelperDTypes() {
		entries = append(entries, compareEntry(dt))
	}
	h, err := launch.LoadHelper(context.Background(), ctx, tc, "swigen_bench_compare", compareSource, entries)
	if err != nil {
		return nil, fmt.Errorf("bench: new comparer: %w", err)
	}
	return &Comparer{h: h}, nil
}

// Close unloads the module; closing a nil Comparer does nothing.
func (c *Comparer) Close() error {
	if c == nil {
		return nil
	}
	return c.h.Close()
}

// Compare measures n dtype elements at got against those at want, the
// reference (a baseline's output on the same inputs), and waits for the
// GPU at most timeout. Worst is -1: the kernel keeps no index.
func (c *Comparer) Compare(dt tiling.DType, got, want cu.DevicePtr, n int, timeout time.Duration) (num.ErrStats, error) {
	if _, err := dt.HelperSpec("bench: compare"); err != nil {
		return num.ErrStats{}, err
	}
	if got == 0 || want == 0 || n < 0 {
		return num.ErrStats{}, fmt.Errorf("bench: compare %d elements: null tensor or negative size", n)
	}
	if n == 0 {
		return num.ErrStats{Worst: -1}, nil
	}
	ctx := c.h.Ctx
	res, err := ctx.MemAlloc(cmpResultBytes)
	if err != nil {
		return num.ErrStats{}, fmt.Errorf("bench: compare: %w", err)
	}
	defer ctx.MemFree(res)
	if err := ctx.MemsetD8(res, 0, cmpResultBytes); err != nil {
		return num.ErrStats{}, fmt.Errorf("bench: compare: %w", err)
	}
	blocks := min(uint64(n+cmpBlock-1)/cmpBlock, uint64(max(c.h.SMs, 1)*cmpBlocksPerSM))
	sums, cnt := res, res+16
	count, poison := uint64(n), num.Poison(dt)
	err = ctx.Launch(c.h.Fns[compareEntry(dt)],
		cu.LaunchConfig{Grid: [3]uint32{uint32(blocks), 1, 1}, Block: [3]uint32{cmpBlock, 1, 1}},
		unsafe.Pointer(&got), unsafe.Pointer(&want), unsafe.Pointer(&count), unsafe.Pointer(&poison),
		unsafe.Pointer(&sums), unsafe.Pointer(&cnt))
	if err != nil {
		return num.ErrStats{}, fmt.Errorf("bench: compare: %w", err)
	}
	if err := ctx.Synchronize(timeout, "device comparison"); err != nil {
		return num.ErrStats{}, err
	}
	raw := make([]byte, cmpResultBytes)
	if err := ctx.MemcpyDtoH(raw, res); err != nil {
		return num.ErrStats{}, fmt.Errorf("bench: compare: %w", err)
	}
	return compareStats(raw), nil
}

// compareStats turns the kernel's result block into ErrStats as
// num.CompareRawBoth defines them.
func compareStats(raw []byte) num.ErrStats {
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(raw[8*i:]) }
	diff2, want2 := math.Float64frombits(u(0)), math.Float64frombits(u(1))
	return num.ErrStats{NaNs: int(u(2)), Poisoned: int(u(3)), MaxAbs: math.Float64frombits(u(4)), Worst: -1,
		RelFrobenius: num.RelFrobenius(diff2, want2)}
}
