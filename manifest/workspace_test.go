package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// streamKManifest is the manifest of a stream-K gemm.
func streamKManifest(t *testing.T, sched tiling.Schedule, m, n int) Manifest {
	t.Helper()
	cfg := tiling.Config{Kernel: tiling.KernelGEMM, Arch: tiling.ArchSM90a, DType: tiling.BF16, Schedule: sched,
		TileM: m, TileN: n, TileK: 64, Stages: 3, Scheduler: tiling.StreamKScheduler}.WithDefaults()
	k, err := tiling.Check(cfg)
	if err != nil {
		t.Fatal(err)
	}
	man, err := New(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := man.Validate(); err != nil {
		t.Fatal(err)
	}
	return man
}

// The workspace the manifest asks for is the layout tiling owns, at every
// grid; the grid is one CTA per SM whatever the tile count.
func TestStreamKWorkspaceResolve(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sched tiling.Schedule
		m, n  int
	}{{tiling.Cooperative, 128, 256}, {tiling.PingPong, 128, 128}} {
		man := streamKManifest(t, c.sched, c.m, c.n)
		last := man.Params[len(man.Params)-1]
		if last.Kind != KindWorkspace || last.Name != "workspace" {
			t.Fatalf("%s: last parameter %+v: want the workspace", man.Name, last)
		}
		for _, sms := range []int{1, 16, 132, 148} {
			l, err := man.Resolve(Sizes{"M": 2048, "N": 7168, "K": 4096}, Device{SMs: sms})
			if err != nil {
				t.Fatal(err)
			}
			if l.Grid[0] != sms {
				t.Errorf("%s on %d SMs: grid %d, want %d", man.Name, sms, l.Grid[0], sms)
			}
			flags, _, total := tiling.StreamKWorkspace(sms, c.m, c.n)
			got := l.Args[len(l.Args)-1].Workspace
			want := &WorkspaceSize{Bytes: int64(total), ZeroBytes: int64(sms*tiling.StreamKFlagBytes + tiling.StreamKHeaderBytes), Align: 256}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s on %d SMs: workspace (-want +got):\n%s", man.Name, sms, diff)
			}
			if got.ZeroBytes > int64(flags) {
				t.Errorf("%s: zeroed %d bytes past the %d-byte flag area", man.Name, got.ZeroBytes, flags)
			}
		}
	}
}

func TestWorkspaceValidateErrors(t *testing.T) {
	t.Parallel()
	ws := func(w *Workspace) Manifest {
		return Manifest{Name: "k", Sizes: []string{"M"}, BlockThreads: 384, ClusterDims: [3]int{1, 1, 1}, Grid: Grid{Tiles: "M"},
			Buffers: []Buffer{{Name: "A", Shape: []Expr{"M"}}},
			Params:  []Param{{Name: "workspace", Kind: KindWorkspace, Size: 8, Align: 8, Workspace: w}}}
	}
	tests := []struct {
		name string
		m    Manifest
		want string
	}{
		{"no size", ws(nil), "parameter 0 (workspace): a workspace without its size"},
		{"unknown symbol", ws(&Workspace{Bytes: "grid*Q", Align: 8, ZeroBytes: "0"}), `expression "grid*Q"`},
		{"bad align", ws(&Workspace{Bytes: "grid*8", Align: 12, ZeroBytes: "0"}), "workspace alignment 12: want a power of two"},
		{"zeroes more than it has", ws(&Workspace{Bytes: "grid*8", Align: 8, ZeroBytes: "grid*16"}), "want 1 or more bytes, 0 to all of them zeroed"},
		{"pointer to no buffer", Manifest{Name: "k", BlockThreads: 1, ClusterDims: [3]int{1, 1, 1}, Grid: Grid{Tiles: "1"},
			Params: []Param{{Name: "offs", Kind: KindPtr, Size: 8, Align: 8, Buffer: "offsets"}}}, `pointer to buffer "offsets", which is not listed`},
		{"i64 of 4 bytes", Manifest{Name: "k", BlockThreads: 1, ClusterDims: [3]int{1, 1, 1}, Grid: Grid{Tiles: "1"},
			Params: []Param{{Name: "n", Kind: KindI64, Size: 4, Align: 4, Value: "1"}}}, "size 4: a i64 is 8 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// A stream-K grid refuses clusters (a hand-made manifest: tiling refuses
// the config).
func TestStreamKGridRefusesClusters(t *testing.T) {
	t.Parallel()
	m := Manifest{Name: "k", ClusterDims: [3]int{2, 1, 1}, Grid: Grid{Tiles: "4", CTAsPerTile: 1, Scheduler: SchedulerStreamK}}
	if _, err := m.GridCTAs(nil, 132, 0); err == nil || !strings.Contains(err.Error(), "a streamk grid of 1 CTAs per tile in clusters of 2") {
		t.Fatalf("GridCTAs = %v; want the cluster refused", err)
	}
}

// Stream-K's work list is 32-bit: the grid stops at tiling.StreamKMaxCTAs
// and the reduction at tiling.StreamKMaxKBlocks k-blocks (fwd_down's is I).
func TestStreamKLimits(t *testing.T) {
	t.Parallel()
	man := streamKManifest(t, tiling.PingPong, 128, 128)
	if g, err := man.GridCTAs(Sizes{"M": 128, "N": 128, "K": 64}, 1000, 0); err != nil || g != tiling.StreamKMaxCTAs {
		t.Errorf("GridCTAs on 1000 SMs = %d, %v; want %d", g, err, tiling.StreamKMaxCTAs)
	}
	maxK := tiling.StreamKMaxKBlocks * 64
	if err := man.CheckSizes(Sizes{"M": 128, "N": 128, "K": maxK}); err != nil {
		t.Errorf("K = %d: %v", maxK, err)
	}
	err := man.CheckSizes(Sizes{"M": 128, "N": 128, "K": maxK + 8})
	if want := "stream-K takes at most 65535 k-blocks of 64 (K <= 4194240)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("K = %d: %v; want an error containing %q", maxK+8, err, want)
	}
	cfg := tiling.Config{Kernel: tiling.KernelFwdDown, Arch: tiling.ArchSM90a, DType: tiling.BF16, Schedule: tiling.PingPong,
		TileM: 128, TileN: 128, TileK: 64, Stages: 4, Scheduler: tiling.StreamKScheduler}.WithDefaults()
	k, err := tiling.Check(cfg)
	if err != nil {
		t.Fatal(err)
	}
	down, err := New(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := down.CheckSizes(Sizes{"M": 128, "K": 128, "I": maxK + 8}); err == nil || !strings.Contains(err.Error(), "(I <= 4194240)") {
		t.Errorf("fwd_down I = %d: %v; want the reduction I refused", maxK+8, err)
	}
}
