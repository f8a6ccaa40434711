package gen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestDebugVariantsRender checks what each sm_90a bwd_dswiglu measurement
// variant changes in the source and the parameter list, and that the
// normal kernel has none of it.
func TestDebugVariantsRender(t *testing.T) {
	t.Parallel()
	base := "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong"
	for _, tt := range []struct {
		debug          tiling.Debug
		want, absent   []string
		lastParam      string
		eemptyArrivals string
	}{
		{tiling.DebugNone,
			[]string{"static constexpr int kEpiGroup = 4;", "sw_ldsm4(sw_frag4_row(slot, wl, lane, g), lv);", "sw_stsm4(sw_frag4_row(slot + kEpiGateOff, wl, lane, g), gv);",
				"sw_store_results(&tmap_gde, slot, fcc[0], frr[0]);", "sw_store_results(&tmap_gde, slot, fcc[p], frr[p]);",
				"sw_tma_store_3d(gde, slot, cc, 0, rr);"},
			[]string{"gde_raw", "swigen-trace", "st.global", "__float_as_uint", "sw_named_bar_sync(1 + c, 128);", "lv[q] = sw_lds32(slot + off);"}, "K", "4"},
		{tiling.DebugDirectStore,
			[]string{"int K, unsigned short* __restrict__ gde_raw)", "static constexpr int kEpiGroup = 4;", `st.global.v4.b32 [%0], {%1, %2, %3, %4};`,
				"sw_quad_transpose(lv, lane % 4);", "if (g + kEpiGroup == 16) sw_mbar_arrive(smem + kBarEEmpty"},
			[]string{"sw_tma_store_3d(&tmap_gde", "sw_sts32(slot + off", "sw_named_bar_sync(1 + c, 128);\n          if (threadIdx.x % 128 == 0) {\n            sw_tma"}, "gde_raw", "128"},
		{tiling.DebugNoEpiSmem,
			[]string{"__float_as_uint(acc[mb]", "static constexpr sw_u32 kEpiTxBytes = 0;"},
			[]string{"lv[q] = sw_lds32", "sw_tma_store_3d(&tmap_gde", "sw_tma_load_3d(slot, &tmap_de"}, "K", "4"},
		{tiling.DebugTrace,
			[]string{"__device__ sw_u64 sw_trace[kTraceCtas * 2 * kTraceTiles * kTraceWords];", "tr_opw += sw_clock() - tq0;",
				"tr_dew += sw_clock() - tq;", "tr_mmaw += sw_clock() - tq1;", "sw_trace_put(c, turn, tr_t0, tr_a,",
				"lv[q] = sw_lds32(slot + off);"}, // the trace keeps 32-bit accesses (View.EpiMatrix)
			[]string{"gde_raw", "printf(", "sw_ldsm4(sw_frag4_row(slot, wl"}, "K", "4"},
	} {
		name := base
		if tt.debug != tiling.DebugNone {
			name += "_dbg" + string(tt.debug)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, err := tiling.ParseName(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Render(cfg)
			if err != nil {
				t.Fatal(err)
			}
			src := string(a.Source)
			checkSource(t, src, tt.want, tt.absent)
			if !strings.Contains(src, "sw_mbar_init(smem + kBarEEmpty + 8 * e, "+tt.eemptyArrivals+");") {
				t.Errorf("epilogue-empty barriers not initialised with %s arrivals", tt.eemptyArrivals)
			}
			ps := a.Manifest.Params
			if diff := cmp.Diff(tt.lastParam, ps[len(ps)-1].Name); diff != "" {
				t.Errorf("last parameter (-want +got):\n%s", diff)
			}
		})
	}
	// stg: bwd_dswiglu without StoreOut, and fwd_gateup.
	for _, good := range []string{"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_dbgstg", "fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_dbgstg"} {
		cfg, err := tiling.ParseName(good)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Render(cfg)
		if err != nil {
			t.Fatal(err)
		}
		src := string(a.Source)
		checkSource(t, src, []string{"unsigned short* __restrict__ out_raw", "sw_quad_transpose(ov, lane % 4);", "sw_stg128(out_raw + "},
			[]string{"sw_tma_store_2d(&tmap_out"})
		wantRaw := []string{"out_raw"}
		if cfg.StoreOut {
			wantRaw = append(wantRaw, "de_raw")
			if !strings.Contains(src, "sw_stg128(p + I, gv);") {
				t.Errorf("%s: does not store the gate half of de", good)
			}
		}
		var gotRaw []string
		for _, p := range a.Manifest.Params {
			if p.Kind == "ptr" {
				gotRaw = append(gotRaw, p.Name)
			}
		}
		if diff := cmp.Diff(wantRaw, gotRaw); diff != "" {
			t.Errorf("%s: raw pointer parameters (-want +got):\n%s", good, diff)
		}
	}
	for _, bad := range []string{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_dbgstg", "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_dbgstg"} {
		cfg, err := tiling.ParseName(bad)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := tiling.Implemented(cfg); ok {
			t.Errorf("%s: Implemented", bad)
		}
	}
}

// TestEpilogueHandoff pins who stores the sm_90a epilogue's results and
// how many arrivals free a slot: bwd_dswiglu's producer warp stores each
// finished sub-tile after one arrive per consumer warp, except in the
// variants that store nothing (noepi, nostore, nosmem) or store directly
// (stg: every thread arrives once it has read its operands); the other
// kinds' consumer thread 0 stores and arrives itself.
func TestEpilogueHandoff(t *testing.T) {
	t.Parallel()
	type handoff struct {
		ProducerStores bool
		EEmpty         int
	}
	for _, tt := range []struct {
		name string
		want handoff
	}{
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong", handoff{true, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out", handoff{true, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative", handoff{true, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x2_pingpong", handoff{true, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_dbgtrace", handoff{true, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_dbgnoepi", handoff{false, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_dbgnostore", handoff{false, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_dbgnosmem", handoff{false, 4}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_dbgstg", handoff{false, 128}},
		{"fwd_down_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_bmn", handoff{false, 1}},
		{"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative", handoff{false, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := tiling.ParseName(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			v, err := newSM90View(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, handoff{v.ProducerStores, v.EpiEmptyArrivals}); diff != "" {
				t.Errorf("handoff (-want +got):\n%s", diff)
			}
		})
	}
}
