package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// kindCfg is an sm_90a config of kernel k with the deepest ring that fits.
func kindCfg(k tiling.Kernel, s tiling.Schedule, m, n int, f func(*tiling.Config)) tiling.Config {
	c := tiling.Config{Kernel: k, Arch: tiling.ArchSM90a, DType: tiling.BF16, Schedule: s, TileM: m, TileN: n, TileK: 64}
	if f != nil {
		f(&c)
	}
	c = c.WithDefaults()
	c.Stages = c.MaxStages()
	return c
}

// kindView is the part of a View that differs between the kinds and the
// operand majors.
type kindView struct {
	TileNOut, NB, GateAcc                  int
	NName                                  string
	TransA, TransB                         int
	DescA                                  string
	AK16, AMB, ALoadRow, ALoadSmem         string
	ConsumerASmemStride                    int
	BLoadN, BLoadHalf, BLoadSmem, BLoadRnk string
	BoxA, BoxB                             [3]int
	EpiSlotBytes, EpiLeftOff, EpiGateOff   int
	EpiTxBytes                             int
	EpiLoads, EpiStoreOnly                 bool
}

func TestSM90KindViews(t *testing.T) {
	t.Parallel()
	mnDesc := fmt.Sprintf("0x%016x", descBits(8192, 1024))
	kDesc := fmt.Sprintf("0x%016x", descBits(16, 1024))
	tests := []struct {
		name string
		c    tiling.Config
		want kindView
	}{
		{"gateup pingpong k-major training", kindCfg(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.StoreOut = true }),
			kindView{TileNOut: 64, NB: 1, GateAcc: 32, NName: "I", DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0, 8192", ALoadRow: "0", ALoadSmem: "0",
				// Left rows 0..63 then gate rows 64..127 of the B tile.
				BLoadN: "0, 0", BLoadHalf: "0, 1", BLoadSmem: "0, 8192", BLoadRnk: "-1, -1",
				BoxA: [3]int{64, 128}, BoxB: [3]int{64, 64},
				EpiSlotBytes: 3 * 8192, EpiLeftOff: 8192, EpiGateOff: 2 * 8192, EpiStoreOnly: true}},
		{"gateup cooperative mn-major inference", kindCfg(tiling.KernelFwdGateUp, tiling.Cooperative, 128, 256, func(c *tiling.Config) { c.MajorB = tiling.MNMajor }),
			kindView{TileNOut: 128, NB: 2, GateAcc: 64, NName: "I", TransB: 1, DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0", ALoadRow: "0", ALoadSmem: "0", ConsumerASmemStride: 64 * 128,
				// Slabs 0,1 are left columns n, n+64; slabs 2,3 the gate ones.
				BLoadN: "0, 64, 0, 64", BLoadHalf: "0, 0, 1, 1", BLoadSmem: "0, 8192, 16384, 24576", BLoadRnk: "-1, -1, -1, -1",
				BoxA: [3]int{64, 128}, BoxB: [3]int{64, 64},
				EpiSlotBytes: 8192, EpiStoreOnly: true}},
		{"gateup cluster 2x1 k-major", kindCfg(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.ClusterM = 2 }),
			kindView{TileNOut: 64, NB: 1, GateAcc: 32, NName: "I", DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0, 8192", ALoadRow: "0", ALoadSmem: "0",
				// Each CTA loads half of each half and multicasts it.
				BLoadN: "0, 32, 0, 32", BLoadHalf: "0, 0, 1, 1", BLoadSmem: "0, 4096, 8192, 12288", BLoadRnk: "0, 1, 0, 1",
				BoxA: [3]int{64, 128}, BoxB: [3]int{64, 32},
				EpiSlotBytes: 8192, EpiStoreOnly: true}},
		{"gemm cooperative both mn-major", kindCfg(tiling.KernelGEMM, tiling.Cooperative, 128, 256, func(c *tiling.Config) {
			c.MajorA, c.MajorB = tiling.MNMajor, tiling.MNMajor
		}),
			kindView{TileNOut: 256, NB: 4, NName: "N", TransA: 1, TransB: 1, DescA: mnDesc,
				// A slab q holds rows 64q..; consumer 1 starts at slab 1.
				AK16: "0, 2048, 4096, 6144", AMB: "0", ALoadRow: "0, 64", ALoadSmem: "0, 8192", ConsumerASmemStride: 8192,
				BLoadN: "0, 64, 128, 192", BLoadSmem: "0, 8192, 16384, 24576", BLoadRnk: "-1, -1, -1, -1",
				BoxA: [3]int{64, 64}, BoxB: [3]int{64, 64},
				EpiSlotBytes: 8192, EpiStoreOnly: true}},
		{"fwd_down residual", kindCfg(tiling.KernelFwdDown, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.Residual = true }),
			kindView{TileNOut: 128, NB: 2, NName: "N", DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0, 8192", ALoadRow: "0", ALoadSmem: "0",
				BLoadN: "0", BLoadSmem: "0", BLoadRnk: "-1",
				BoxA: [3]int{64, 128}, BoxB: [3]int{64, 128},
				EpiSlotBytes: 8192, EpiTxBytes: 8192, EpiLoads: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.c.Validate(); err != nil {
				t.Fatalf("%s: %v", tt.c.Name(), err)
			}
			v, err := newSM90View(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			got := kindView{v.TileNOut, v.NB, v.GateAcc, v.NName, v.TransA, v.TransB, v.DescA,
				v.AK16, v.AMB, v.ALoadRow, v.ALoadSmem, v.ConsumerASmemStride,
				v.BLoadN, v.BLoadHalf, v.BLoadSmem, v.BLoadRank, v.BoxA, v.BoxB,
				v.EpiSlotBytes, v.EpiLeftOff, v.EpiGateOff, v.EpiTxBytes, v.EpiLoads, v.EpiStoreOnly}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.c.Name(), d)
			}
			if v.SmemBytes != tt.c.SmemBytes() {
				t.Errorf("view smem %d, tiling model %d", v.SmemBytes, tt.c.SmemBytes())
			}
		})
	}
}

// TestRenderKinds renders each new kind in several shapes and checks the
// parts that must (and must not) be there.
func TestRenderKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c      tiling.Config
		want   []string
		absent []string
	}{
		{kindCfg(tiling.KernelGEMM, tiling.PingPong, 128, 128, nil),
			[]string{"int M,\n    int N,\n    int K) {", "sw_tma_store_2d(&tmap_c, slot, cc, rr);", "sw_bulk_wait_read<kEpiStages - 1>();", "p, 1, 1, 0, 0;"},
			[]string{"tmap_de", "kBLoadHalf", "sw_load_a_mnmajor", "warp == 1 || warp == 2", "<no value>"}},
		{kindCfg(tiling.KernelGEMM, tiling.Cooperative, 256, 128, func(c *tiling.Config) { c.MajorA, c.MajorB, c.ClusterM = tiling.MNMajor, tiling.KMajor, 2 }),
			[]string{"sw_load_a_mnmajor(stage + kALoadSmem[i]", "p, 1, 1, 1, 0;", "sw_load_b_kmajor_mc("},
			[]string{"<no value>"}},
		{kindCfg(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.StoreOut = true }),
			[]string{"int M,\n    int I,\n    int K) {", "n0 + kBLoadHalf[i] * I + kBLoadN[i]);", "static constexpr int kTileN = 64;",
				"wgmma.mma_async.sync.aligned.m64n128k16", "sw_tma_store_3d(&tmap_de, slot + kEpiGateOff, cc, 1, rr);", "sw_sigmoid(g0)"},
			[]string{"warp == 1 || warp == 2", "<no value>"}},
		{kindCfg(tiling.KernelFwdGateUp, tiling.Cooperative, 128, 256, nil),
			[]string{"sw_tma_store_2d(&tmap_out, slot + kEpiOutOff, cc, rr);", "Inference: only out is stored."},
			[]string{"tmap_de", "<no value>"}},
		{kindCfg(tiling.KernelFwdDown, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.Residual = true }),
			[]string{"warp == 1 || warp == 2", "sw_tma_load_2d(slot, &tmap_res, full, cc, rr);", "Epilogue operands of consumer c: residual sub-tiles.",
				"sw_tma_store_2d(&tmap_y, slot, cc, rr);"},
			[]string{"sw_bulk_wait_read<", "<no value>"}},
		{kindCfg(tiling.KernelFwdDown, tiling.Cooperative, 128, 256, func(c *tiling.Config) { c.MajorB = tiling.MNMajor }),
			[]string{"sw_bulk_wait_read<kEpiStages - 1>();", "sw_load_b_mnmajor("},
			[]string{"tmap_res", "<no value>"}},
	}
	for _, tt := range tests {
		t.Run(tt.c.Name(), func(t *testing.T) {
			t.Parallel()
			a, err := Render(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			src := string(a.Source)
			if !strings.HasPrefix(src, "// Code generated by swigen. DO NOT EDIT.\n// kernel: "+tt.c.Name()+"\n") {
				t.Errorf("header:\n%s", src[:min(200, len(src))])
			}
			if !strings.HasSuffix(src, "}\n") {
				t.Errorf("source does not end with the kernel's closing brace and a newline")
			}
			checkSource(t, src, tt.want, tt.absent)
			b, err := Render(tt.c)
			if err != nil || string(b.Source) != src {
				t.Errorf("second render differs (err %v)", err)
			}
		})
	}
}

func TestSM90Params(t *testing.T) {
	t.Parallel()
	names := func(c tiling.Config) []string {
		a, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, p := range a.Manifest.Params {
			n = append(n, p.Name)
		}
		return n
	}
	tests := []struct {
		c    tiling.Config
		want []string
	}{
		{kindCfg(tiling.KernelGEMM, tiling.PingPong, 128, 128, nil), []string{"tmap_a", "tmap_b", "tmap_c", "M", "N", "K"}},
		{kindCfg(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, nil), []string{"tmap_a", "tmap_b", "tmap_out", "M", "I", "K"}},
		{kindCfg(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.StoreOut = true }),
			[]string{"tmap_a", "tmap_b", "tmap_out", "tmap_de", "M", "I", "K"}},
		{kindCfg(tiling.KernelFwdDown, tiling.PingPong, 128, 128, nil), []string{"tmap_a", "tmap_b", "tmap_y", "M", "N", "K"}},
		{kindCfg(tiling.KernelFwdDown, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.Residual = true }),
			[]string{"tmap_a", "tmap_b", "tmap_y", "tmap_res", "M", "N", "K"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, names(tt.c)); d != "" {
			t.Errorf("%s params (-want +got):\n%s", tt.c.Name(), d)
		}
	}
}

// checkSource reports every string of want that src lacks and every
// string of absent that it has.
func checkSource(t *testing.T, src string, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(src, w) {
			t.Errorf("source lacks %q", w)
		}
	}
	for _, w := range absent {
		if strings.Contains(src, w) {
			t.Errorf("source has %q", w)
		}
	}
}
