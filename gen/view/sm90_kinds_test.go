package view

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// kindView is the part of an SM90 view that differs between the kinds and the
// operand majors.
type kindView struct {
	TileNOut, NB, GateAcc                  int
	NName                                  string
	TransA, TransB                         int
	DescA                                  string
	AK16, AMB, ALoadRow, ALoadSmem         string
	ConsumerASmemStride                    int
	BLoadN, BLoadHalf, BLoadSmem, BLoadRnk string
	EpiSlotBytes, EpiLeftOff, EpiGateOff   int
	EpiTxBytes                             int
	EpiLoads, EpiStoreOnly                 bool
}

func TestSM90KindViews(t *testing.T) {
	t.Parallel()
	// ptx.md §0 and §A2: LBO 16 (K-major) or the 8192-byte slab (MN-major),
	// SBO 1024, 128-byte swizzle.
	mnDesc, kDesc := "0x4000004002000000", "0x4000004000010000"
	tests := []struct {
		name string
		c    tiling.Config
		want kindView
	}{
		{"gateup pingpong k-major training", tilingtest.SM90Kind(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.StoreOut = true }),
			kindView{TileNOut: 64, NB: 1, GateAcc: 32, NName: "I", DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0, 8192", ALoadRow: "0", ALoadSmem: "0",
				// Left rows 0..63 then gate rows 64..127 of the B tile.
				BLoadN: "0, 0", BLoadHalf: "0, 1", BLoadSmem: "0, 8192", BLoadRnk: "-1, -1",
				EpiSlotBytes: 3 * 8192, EpiLeftOff: 8192, EpiGateOff: 2 * 8192, EpiStoreOnly: true}},
		{"gateup cooperative mn-major inference", tilingtest.SM90Kind(tiling.KernelFwdGateUp, tiling.Cooperative, 128, 256, func(c *tiling.Config) { c.MajorB = tiling.MNMajor }),
			kindView{TileNOut: 128, NB: 2, GateAcc: 64, NName: "I", TransB: 1, DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0", ALoadRow: "0", ALoadSmem: "0", ConsumerASmemStride: 64 * 128,
				// Slabs 0,1 are left columns n, n+64; slabs 2,3 the gate ones.
				BLoadN: "0, 64, 0, 64", BLoadHalf: "0, 0, 1, 1", BLoadSmem: "0, 8192, 16384, 24576", BLoadRnk: "-1, -1, -1, -1",
				EpiSlotBytes: 8192, EpiStoreOnly: true}},
		{"gateup cluster 2x1 k-major", tilingtest.SM90Kind(tiling.KernelFwdGateUp, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.ClusterM = 2 }),
			kindView{TileNOut: 64, NB: 1, GateAcc: 32, NName: "I", DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0, 8192", ALoadRow: "0", ALoadSmem: "0",
				// Each CTA loads half of each half and multicasts it.
				BLoadN: "0, 32, 0, 32", BLoadHalf: "0, 0, 1, 1", BLoadSmem: "0, 4096, 8192, 12288", BLoadRnk: "0, 1, 0, 1",
				EpiSlotBytes: 8192, EpiStoreOnly: true}},
		{"gemm cooperative both mn-major", tilingtest.SM90Kind(tiling.KernelGEMM, tiling.Cooperative, 128, 256, func(c *tiling.Config) {
			c.MajorA, c.MajorB = tiling.MNMajor, tiling.MNMajor
		}),
			kindView{TileNOut: 256, NB: 4, NName: "N", TransA: 1, TransB: 1, DescA: mnDesc,
				// A slab q holds rows 64q..; consumer 1 starts at slab 1.
				AK16: "0, 2048, 4096, 6144", AMB: "0", ALoadRow: "0, 64", ALoadSmem: "0, 8192", ConsumerASmemStride: 8192,
				BLoadN: "0, 64, 128, 192", BLoadSmem: "0, 8192, 16384, 24576", BLoadRnk: "-1, -1, -1, -1",
				EpiSlotBytes: 8192, EpiStoreOnly: true}},
		{"fwd_down residual", tilingtest.SM90Kind(tiling.KernelFwdDown, tiling.PingPong, 128, 128, func(c *tiling.Config) { c.Residual = true }),
			kindView{TileNOut: 128, NB: 2, NName: "N", DescA: kDesc,
				AK16: "0, 32, 64, 96", AMB: "0, 8192", ALoadRow: "0", ALoadSmem: "0",
				BLoadN: "0", BLoadSmem: "0", BLoadRnk: "-1",
				EpiSlotBytes: 8192, EpiTxBytes: 8192, EpiLoads: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.c.Validate(); err != nil {
				t.Fatalf("%s: %v", tt.c.Name(), err)
			}
			v, err := newSM90(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			got := kindView{v.Tile.NOut, v.Tile.NB, v.Epi.GateAcc, v.Kind.NName, v.A.Trans, v.B.Trans, v.A.Desc,
				v.A.K16, v.A.MB, v.A.MN, v.A.Smem, v.A.ConsumerOff,
				v.B.MN, v.B.Half, v.B.Smem, v.B.Rank,
				v.Epi.SlotBytes, v.Epi.LeftOff, v.Epi.GateOff, v.Epi.TxBytes, v.Epi.Loads, v.Epi.StoreOnly}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.c.Name(), d)
			}
		})
	}
}
