package perfmodel

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swigen/swigen/tiling"
)

// seed is the seed shape; seedCfg the sm_100a heuristic's config for it
// (2cta 256x256x64 on a 2x1 cluster, static scheduler).
var seed = tiling.Shape{M: 16384, K: 768, I: 4608}

func config(t *testing.T, name string) tiling.Config {
	t.Helper()
	c, err := tiling.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	seedName   = "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta"
	oneCTAName = "bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta"
	storeName  = "bwd_dswiglu_sm100a_bf16_m256n256k64_s4_c2x1_2cta_out"
)

func TestNewTileWork(t *testing.T) {
	tests := []struct {
		name string
		cfg  string
		s    tiling.Shape
		want TileWork
	}{
		// Each CTA of the pair: 128 rows x 256 columns; A 128 rows and B
		// 128 rows per k-step; 32768 elements.
		{"2cta seed", seedName, seed, TileWork{Rows: 128, Cols: 256, K: 768,
			MMAFLOPs: 2 * 128 * 256 * 768, OperandBytes: (128 + 128) * 768 * 2,
			TMEMBytes: 4 * 32768, ALUOps: 12 * 32768, MUFUOps: 2 * 32768,
			SmemBytes: 8 * 32768, LoadBytes: 4 * 32768, StoreBytes: 4 * 32768}},
		// One CTA loads all 256 B rows.
		{"1cta seed", oneCTAName, seed, TileWork{Rows: 128, Cols: 256, K: 768,
			MMAFLOPs: 2 * 128 * 256 * 768, OperandBytes: (128 + 256) * 768 * 2,
			TMEMBytes: 4 * 32768, ALUOps: 12 * 32768, MUFUOps: 2 * 32768,
			SmemBytes: 8 * 32768, LoadBytes: 4 * 32768, StoreBytes: 4 * 32768}},
		// K=200 runs four 64-deep k-blocks; out adds 2 bytes per element to
		// the stores and the staging, and 1.5 ALU instructions.
		{"store out, ragged K", storeName, tiling.Shape{M: 1000, K: 200, I: 512}, TileWork{Rows: 128, Cols: 256, K: 256,
			MMAFLOPs: 2 * 128 * 256 * 256, OperandBytes: (128 + 128) * 256 * 2,
			TMEMBytes: 4 * 32768, ALUOps: 13.5 * 32768, MUFUOps: 2 * 32768,
			SmemBytes: 10 * 32768, LoadBytes: 4 * 32768, StoreBytes: 6 * 32768}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewTileWork(config(t, tt.cfg), tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("NewTileWork(%s, %s) (-want +got):\n%s", tt.cfg, tt.s, d)
			}
		})
	}
}

func TestInstructionsPerElement(t *testing.T) {
	fast := config(t, seedName)
	fast.FastSigmoid = true
	tests := []struct {
		name      string
		c         tiling.Config
		alu, mufu float64
	}{
		{"ex2 + rcp", config(t, seedName), 12, 2},
		{"tanh", fast, 12, 1},
		{"out stored", config(t, storeName), 13.5, 2},
	}
	for _, tt := range tests {
		if alu, mufu := ALUPerElement(tt.c), MUFUPerElement(tt.c); alu != tt.alu || mufu != tt.mufu {
			t.Errorf("%s: ALU %v, MUFU %v per element; want %v, %v", tt.name, alu, mufu, tt.alu, tt.mufu)
		}
	}
}

func TestTileTimes(t *testing.T) {
	g, _ := Lookup("b200")
	// Hand-computed per-SM rates: clock 2250e3/(148*8192) GHz; tensor
	// 2250e6/148 FLOP/us; HBM 8e6/148 B/us; per-clock rates * clock * 1e3
	// per us.
	clk := 2250e3 / (148 * 8192)
	tensor, hbm := 2250e6/148, 8e6/148.0
	perUS := func(perClk float64) float64 { return perClk * clk * 1e3 }
	mma := 2 * 128 * 256 * 768 / tensor
	tma := (128 + 128) * 768 * 2 / perUS(64)
	tmem := 4 * 32768 / perUS(512)
	// (12 + 2) issue slots at 128 per clock against 2 MUFU at 16: MUFU.
	mathUS := 2 * 32768 / perUS(16)
	smem := 8 * 32768 / perUS(128)
	loads, stores := 4*32768/hbm, 4*32768/hbm
	want := TileTimes{MMA: mma, TMA: tma, Mainloop: max(mma, tma),
		TMEMLoad: tmem, Math: mathUS, Smem: smem, Warpgroup: tmem + mathUS + smem,
		Loads: loads, Stores: stores, HBM: loads + stores, Epilogue: loads + stores}
	w, err := NewTileWork(config(t, seedName), seed)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, w.Times(g), cmpopts.EquateApprox(1e-12, 0)); d != "" {
		t.Errorf("seed tile times (-want +got):\n%s", d)
	}
	// The numbers the doc comments and DESIGN.md quote.
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"clock GHz", g.ClockGHz(), 1.856}, {"MMA us", mma, 3.31}, {"HBM us", loads + stores, 4.85}} {
		if d := c.got - c.want; d > 0.005 || d < -0.005 {
			t.Errorf("%s = %.4f, want %.3f", c.what, c.got, c.want)
		}
	}
}

func TestNewTileWorkRejects(t *testing.T) {
	for _, name := range []string{
		"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong",
		"fwd_gateup_sm100a_bf16_m256n256k64_s4_c2x1_2cta",
	} {
		c := config(t, name)
		if _, err := NewTileWork(c, seed); err == nil || !strings.Contains(err.Error(), "sm_100a bwd_dswiglu configs only") {
			t.Errorf("NewTileWork(%s) = %v; want an error naming the rule", name, err)
		}
	}
}
