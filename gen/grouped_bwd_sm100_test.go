package gen

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestRenderMoEBwdSM100 renders the sm_100a moe_bwd_dswiglu configs
// (groupedBwdSM100Configs): the manifest's parameters in order, every role
// walking the grouped cursor (the static scheduler's functions gone), W_down
// loaded through its 3-D map at the tile's expert, and the epilogue
// TMA-storing a sub-tile inside the expert and storing the ragged last
// one's rows from registers, bounded by the expert's end and I, with the
// de slot freed on both paths.
func TestRenderMoEBwdSM100(t *testing.T) {
	t.Parallel()
	both := []string{
		"sw_load_b_mnmajor_e(stage + kBOff + kBLoadSmem[i], &tmap_b, bar, kb * kTileK + kBLoadK[i], n0 + kBLoadN[i], b_expert);",
		"const int b_expert = gc.e;",
		"sw_tma_load_3d(dst, m, bar, n, k, e);",
		"n0 = gc.e * kBExpertRows * I + tn * kTileN;",
		"static constexpr int kBExpertRows = 0;",
		"const bool ragged = r0 + kRowsPerCTA > row_end;",
		"const bool mine = r0 + row < row_end;",
		"} else if (mine && cc + 8 * j < I) {",
		"sw_gr_stg128(gde_ptr, r0 + row, cc + 8 * j, 2 * I, dl);",
		"sw_gr_stg128(gde_ptr, r0 + row, I + cc + 8 * j, 2 * I, dg);",
		"sw_tma_store_3d(&tmap_gde, slot, cc, 0, r0);",
		"sw_tma_store_3d(&tmap_gde, slot + kEpiGateOff, cc, 1, r0);",
		// The slot is freed after the store branch, ragged or not.
		"            sw_bulk_wait_read0();\n          }\n",
	}
	training := []string{
		"sw_gr_stg128(out_ptr, r0 + row, cc + 8 * j, I, ow);",
		"sw_tma_store_2d(&tmap_out, slot + kEpiOutOff, cc, r0);",
	}
	for _, name := range groupedBwdSM100Configs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := tiling.ParseName(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := renderCfg(c)
			if err != nil {
				t.Fatal(err)
			}
			src := string(a.Source)
			want, absent := both, []string{"<no value>", "sw_first_tile", "sw_next_tile", "kClcStages", "sw_load_b_mnmajor(stage"}
			if c.StoreOut {
				want = append(append([]string(nil), both...), training...)
			} else {
				absent = append(absent, "tmap_out", "out_ptr", "kEpiOutOff")
			}
			checkSource(t, src, want, absent)
			// One cursor walk per role: producer, MMA issuer, epilogue
			// loader, epilogue.
			if n := strings.Count(src, "sw_gr_tile(gc, goffs, E, M, tiles_n, t, tm, tn)"); n != 4 {
				t.Errorf("%d roles walk the grouped cursor, want 4", n)
			}
			if n := strings.Count(src, "sw_mbar_arrive(smem + kBarEEmpty + 8 * s);"); n != 1 {
				t.Errorf("%d slot releases, want 1 (after the store branch)", n)
			}
			checkGroupedSignature(t, a)
		})
	}
}
