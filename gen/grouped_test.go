package gen

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// moeGateUpConfigs are the grouped fwd gate-up configs rendered and
// compiled here: inference and training (StoreOut: de too), ping-pong and
// cooperative, tile M 128 and 64, both dtypes, with and without the router
// score.
var moeGateUpConfigs = []string{
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
	"moe_fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out",
	"moe_fwd_gateup_sm90a_bf16_m64n128k64_s5_c1x1_pingpong_out",
	"moe_fwd_gateup_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_out",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_score",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out_score",
	"moe_fwd_gateup_sm90a_fp16_m64n128k64_s5_c1x1_pingpong_out_score",
}

// groupedDeclRE is one parameter declaration of a grouped kernel: a tensor
// map, an int or a pointer.
var groupedDeclRE = regexp.MustCompile(`^\s*(const __grid_constant__ sw_tmap|int|const unsigned char\*) (\w+),?$`)

// TestRenderMoEFwdGateUp renders the grouped fwd gate-up configs: the
// kernel declares exactly the manifest's parameters in its order, and the
// epilogue stores out (training: and both halves of de; with the score,
// out scaled by the row's score) by TMA for a sub-tile inside the expert and row by row, bounded by the expert's end
// and I, for its ragged last one.
func TestRenderMoEFwdGateUp(t *testing.T) {
	t.Parallel()
	both := []string{
		"sw_tma_store_2d(&tmap_out, slot + kEpiOutOff, cc, rr);",
		"sw_gr_store_rows(out_ptr, slot + kEpiOutOff, rr, row_end, cc, I, I, tid);",
		"if (rr + 64 <= row_end) {",
	}
	training := []string{
		"fv[1][q] = sw_pack_", "fv[2][q] = sw_pack_",
		"sw_stsm4(row + kEpiLeftOff, fv[1]);", "sw_stsm4(row + kEpiGateOff, fv[2]);",
		"sw_tma_store_3d(&tmap_de, slot + kEpiLeftOff, cc, 0, rr);",
		"sw_tma_store_3d(&tmap_de, slot + kEpiGateOff, cc, 1, rr);",
		"sw_gr_store_rows(de_ptr, slot + kEpiLeftOff, rr, row_end, cc, I, 2 * I, tid);",
		"sw_gr_store_rows(de_ptr + (sw_u64)I * 2u, slot + kEpiGateOff, rr, row_end, cc, I, 2 * I, tid);",
		"sw_prefetch_tmap(&tmap_de);",
		"Training: de = [left | gate] is stored as well",
	}
	for _, name := range moeGateUpConfigs {
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
			want, absent := both, []string{"<no value>"}
			if c.StoreOut {
				want = append(append([]string(nil), both...), training...)
			} else {
				absent = append(absent, "tmap_de", "de_ptr", "kEpiLeftOff")
			}
			if c.Score {
				// out is scaled by the row's score; de (training) is not.
				want = append(want, "sw_gr_score(score_ptr, sr, row_end), sw_gr_score(score_ptr, sr + 8, row_end)",
					"(sc[h] * (d0 * (g0 * sw_sigmoid(g0))), sc[h] * (d1 * (g1 * sw_sigmoid(g1))))")
			} else {
				absent = append(absent, "score_ptr", "sw_gr_score")
			}
			checkSource(t, src, want, absent)
			checkGroupedSignature(t, a)
		})
	}
}

// checkGroupedSignature: the kernel of a declares exactly the manifest's
// parameters in its order.
func checkGroupedSignature(t *testing.T, a *Artifact) {
	t.Helper()
	ctype := map[string]manifest.Kind{"const __grid_constant__ sw_tmap": manifest.KindTensorMap, "int": manifest.KindI32,
		"const unsigned char*": manifest.KindPtr}
	m := signatureRE.FindStringSubmatch(string(a.Source))
	if m == nil {
		t.Fatal("no kernel signature in the source")
	}
	type decl struct {
		Name string
		Kind manifest.Kind
	}
	var got, wantDecls []decl
	for _, line := range strings.Split(m[1], "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		d := groupedDeclRE.FindStringSubmatch(line)
		if d == nil {
			t.Fatalf("parameter line %q", line)
		}
		got = append(got, decl{d[2], ctype[d[1]]})
	}
	for _, p := range a.Manifest.Params {
		wantDecls = append(wantDecls, decl{p.Name, p.Kind})
	}
	if d := cmp.Diff(wantDecls, got); d != "" {
		t.Errorf("signature (-manifest +source):\n%s", d)
	}
}

// TestRenderMoEFwdGateUpSM100 renders the sm_100a grouped configs
// (groupedSM100Configs): the manifest's parameters in order, every role
// walking the grouped cursor (the static scheduler's functions gone), the
// producer's W rows at the expert's block, and the epilogue TMA-storing a
// sub-tile inside the expert and storing the ragged last one's rows from
// registers, bounded by the expert's end and I, then waiting for every
// bulk store.
func TestRenderMoEFwdGateUpSM100(t *testing.T) {
	t.Parallel()
	both := []string{
		"n0 = gc.e * kBExpertRows * I + tn * kTileN;",
		"const bool ragged = r0 + kRowsPerCTA > row_end;",
		"const bool mine = r0 + row < row_end;",
		"} else if (mine && cc + 8 * j < I) {",
		"sw_gr_stg128(out_ptr, r0 + row, cc + 8 * j, I, ow);",
		"sw_tma_store_2d(&tmap_out, slot + kEpiOutOff, cc, r0);",
		"sw_bulk_wait_read<0>();",
	}
	training := []string{
		"sw_gr_stg128(de_ptr, r0 + row, cc + 8 * j, 2 * I, lw);",
		"sw_gr_stg128(de_ptr, r0 + row, I + cc + 8 * j, 2 * I, gw);",
		"sw_tma_store_3d(&tmap_de, slot + kEpiLeftOff, cc, 0, r0);",
		"sw_tma_store_3d(&tmap_de, slot + kEpiGateOff, cc, 1, r0);",
	}
	for _, name := range groupedSM100Configs {
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
			want, absent := both, []string{"<no value>", "sw_first_tile", "sw_next_tile", "kClcStages"}
			if c.StoreOut {
				want = append(append([]string(nil), both...), training...)
			} else {
				absent = append(absent, "tmap_de", "de_ptr", "kEpiLeftOff")
			}
			checkSource(t, src, want, absent)
			// One cursor walk per role: producer, MMA issuer, epilogue.
			if n := strings.Count(src, "sw_gr_tile(gc, goffs, E, M, tiles_n, t, tm, tn)"); n != 3 {
				t.Errorf("%d roles walk the grouped cursor, want 3", n)
			}
			checkGroupedSignature(t, a)
		})
	}
}

// TestCompileMoEFwdGateUp compiles the grouped fwd gate-up configs with
// ptxas for sm_90a (no spills, no stack frame, no hazard notes) and finds
// the row-by-row stores' 128-bit global stores beside the TMA stores.
func TestCompileMoEFwdGateUp(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, name := range moeGateUpConfigs {
		t.Run(name, func(t *testing.T) {
			c, err := tiling.ParseName(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := renderCfg(c)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			ctx := context.Background()
			r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_90a", CacheDir: cache, Include: a.Include})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if tc.CUObjdump == "" || tc.NVDisasm == "" {
				t.Skipf("compiled; skipping SASS check: %v has no cuobjdump/nvdisasm", tc)
			}
			sass, err := tc.SASS(ctx, r.Cubin)
			if err != nil {
				t.Fatalf("SASS: %v", err)
			}
			if err := toolchain.CheckOpcodes(sass, []string{"HGMMA", "UTMALDG", "UTMASTG", "STG.E.128"}); err != nil {
				t.Error(err)
			}
		})
	}
}
