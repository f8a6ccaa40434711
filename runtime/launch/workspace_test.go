package launch

import (
	"encoding/binary"
	"testing"

	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// A stream-K kernel's plans get the kernel's own workspace: allocated once
// per size, the same for every plan of that size, its address packed into
// the workspace parameter and given by Plan.Workspace; callers pass none.
func TestPlanOwnsWorkspace(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.ParseName("gemm_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_sk")
	if err != nil {
		t.Fatal(err)
	}
	man, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	var allocs []manifest.WorkspaceSize
	k := &Kernel{Man: man, numSMs: 132, encode: (&recorder{}).encode,
		alloc: func(w *manifest.WorkspaceSize) (cu.DevicePtr, error) {
			allocs = append(allocs, *w)
			return cu.DevicePtr(0x7e0000000000 + uint64(len(allocs))<<32), nil
		}}
	plan := func(m int) *Plan {
		p, err := k.Plan(GemmArgs{M: m, N: 7168, K: 4096, A: 1 << 30, B: 2 << 30, C: 3 << 30})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p1, p2 := plan(2048), plan(64)
	_, _, total := tiling.StreamKWorkspace(132, 128, 256)
	want := []manifest.WorkspaceSize{{Bytes: int64(total), ZeroBytes: 132*tiling.StreamKFlagBytes + tiling.StreamKHeaderBytes, Align: 256}}
	if diff := cmp.Diff(want, allocs); diff != "" {
		t.Fatalf("allocations (-want +got):\n%s", diff)
	}
	last := len(man.Params) - 1
	for _, p := range []*Plan{p1, p2} {
		got := binary.LittleEndian.Uint64(p.params[uintptr(p.args[last])-uintptrOf(p.params):])
		if got != 0x7e0100000000 {
			t.Errorf("workspace argument %#x, want %#x", got, 0x7e0100000000)
		}
		if ws, size := p.Workspace(); ws != 0x7e0100000000 || size != want[0] {
			t.Errorf("Workspace() = %#x, %+v; want %#x, %+v", uint64(ws), size, 0x7e0100000000, want[0])
		}
	}
	if err := k.freeWorkspaces(); err != nil || len(k.ws) != 0 {
		t.Errorf("freeWorkspaces = %v, %d left", err, len(k.ws))
	}
}

// Plans on two streams may run at once: each stream gets its own
// workspace (one shared would mix the launches' flags and partial sums),
// and plans on one stream share it.
func TestPlanWorkspacePerStream(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.ParseName("gemm_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_sk")
	if err != nil {
		t.Fatal(err)
	}
	man, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	k := &Kernel{Man: man, numSMs: 132, encode: (&recorder{}).encode,
		alloc: func(*manifest.WorkspaceSize) (cu.DevicePtr, error) {
			n++
			return cu.DevicePtr(0x7e0000000000 + uint64(n)<<32), nil
		}}
	last := len(man.Params) - 1
	ws := func(s *cu.Stream) uint64 {
		p, err := k.Plan(GemmArgs{M: 2048, N: 7168, K: 4096, A: 1 << 30, B: 2 << 30, C: 3 << 30, Stream: s})
		if err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint64(p.params[uintptr(p.args[last])-uintptrOf(p.params):])
	}
	s1, s2 := &cu.Stream{}, &cu.Stream{}
	got := []uint64{ws(s1), ws(s2), ws(nil), ws(s1), ws(s2), ws(nil)}
	want := []uint64{0x7e0100000000, 0x7e0200000000, 0x7e0300000000, 0x7e0100000000, 0x7e0200000000, 0x7e0300000000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workspace arguments on streams s1, s2, default, s1, s2, default (-want +got):\n%s", diff)
	}
}

// uintptrOf is the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

// LimitSMs sizes a stream-K plan's grid and workspace for fewer SMs than
// the device's (a grid that is a multiple of 16, as on a MIG slice), and
// refuses a count outside 1..NumSMs.
func TestLimitSMs(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.ParseName("gemm_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_sk")
	if err != nil {
		t.Fatal(err)
	}
	man, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	k := &Kernel{Man: man, numSMs: 132, encode: (&recorder{}).encode,
		alloc: func(*manifest.WorkspaceSize) (cu.DevicePtr, error) { return 0x7e0000000000, nil }}
	for _, n := range []int{0, -1, 133} {
		if err := k.LimitSMs(n); err == nil {
			t.Errorf("LimitSMs(%d) = nil, want the rule", n)
		}
	}
	if err := k.LimitSMs(128); err != nil {
		t.Fatal(err)
	}
	p, err := k.Plan(GemmArgs{M: 2048, N: 7168, K: 4096, A: 1 << 30, B: 2 << 30, C: 3 << 30})
	if err != nil {
		t.Fatal(err)
	}
	_, _, total := tiling.StreamKWorkspace(128, 128, 256)
	if _, size := p.Workspace(); p.Grid() != 128 || size.Bytes != int64(total) || k.NumSMs() != 128 {
		t.Errorf("grid %d, workspace %d bytes, NumSMs %d; want 128, %d, 128", p.Grid(), size.Bytes, k.NumSMs(), total)
	}
}
