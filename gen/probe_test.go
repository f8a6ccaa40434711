package gen

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// TestProbesRender checks what each probe adds to the seed shape's sm_90a
// bwd_dswiglu kernel, and that the product kernel carries none of it.
func TestProbesRender(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	product, err := renderCfg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		probe        string
		want, absent []string
	}{
		{"hang", []string{"sw_mbar_wait(smem + kBarFull, 0u);"}, nil},
		{"nomma", []string{"probe nomma"}, []string{"sw_wgmma(acc[mb]"}},
		{"noepi", []string{"probe noepi"}, []string{"sw_store_results("}},
		{"trace", []string{"__device__ sw_u64 sw_trace[kTraceCtas * 2 * kTraceTiles * kTraceWords];", "tr_opw += sw_clock() - tq0;",
			"tr_dew += sw_clock() - tq;", "tr_mmaw += sw_clock() - tq1;", "sw_trace_put(c, turn, tr_t0, tr_a,",
			"lv[q] = sw_lds32(slot + off);"}, // 32-bit epilogue accesses: the counters take ldmatrix's registers
			[]string{"sw_ldsm4(sw_frag4_row(slot, wl", "printf("}},
		{"epitrace", []string{"__device__ sw_u64 sw_trace[kTraceCtas * 2 * kTraceTiles * kTraceWords];", "tr_dew += sw_clock() - tq;",
			"r[5] = tr_e;"}, []string{"tr_opw", "tr_t0", "lv[q] = sw_lds32(", "printf("}},
	} {
		t.Run(tt.probe, func(t *testing.T) {
			a, err := renderProbeCfg(cfg, tt.probe)
			if err != nil {
				t.Fatal(err)
			}
			if want := cfg.Name() + "_probe_" + tt.probe; a.Name != want || a.Manifest.Entry != want || a.Manifest.Probe != tt.probe {
				t.Errorf("name %q, entry %q, probe %q; want %q, %q, %q", a.Name, a.Manifest.Entry, a.Manifest.Probe, want, want, tt.probe)
			}
			checkSource(t, string(a.Source), tt.want, tt.absent)
			for _, w := range tt.want {
				if strings.Contains(string(product.Source), w) {
					t.Errorf("the product kernel contains the probe's %q", w)
				}
			}
		})
	}
}

// TestEpitraceKeepsProductPath: the epitrace probe changes the product
// kernel's source only by its hooks; its epilogue keeps ldmatrix/stmatrix
// (the trace probe's 32-bit accesses are what made its times differ).
func TestEpitraceKeepsProductPath(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k")
	if err != nil {
		t.Fatal(err)
	}
	a, err := renderProbeCfg(cfg, "epitrace")
	if err != nil {
		t.Fatal(err)
	}
	checkSource(t, string(a.Source), []string{"sw_ldsm4(sw_frag4_row(slot, wl", "sw_stsm4(sw_frag4_row(slot, wl"}, nil)
	if a.Manifest.Trace == nil || *a.Manifest.Trace != manifest.DefaultTraceLayout {
		t.Errorf("manifest trace layout %v, want %v", a.Manifest.Trace, manifest.DefaultTraceLayout)
	}
}

// TestProductHasNoProbeCode: no rendered catalog kernel mentions a probe.
func TestProductHasNoProbeCode(t *testing.T) {
	t.Parallel()
	for _, c := range tiling.Catalog() {
		a, err := renderCfg(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"probe", "kDbg", "sw_trace", "sw_clock"} {
			if strings.Contains(string(a.Source), bad) {
				t.Errorf("%s contains %q", c.Name(), bad)
			}
		}
	}
}

func TestProbeSupport(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, probe, errPart string
	}{
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap", "hang", ""},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap", "nomma", "pingpong and cooperative"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap", "trace", "pingpong and cooperative"},
		{"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", "noepi", "exists for bwd_dswiglu"},
		{"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", "trace", ""},
		{"gemm_sm100a_bf16_m128n256k64_s4_c1x1_1cta", "hang", "sm_90a only"},
		{"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", "nosuch", "want one of hang, nomma, noepi, trace"},
	} {
		t.Run(tt.name+"/"+tt.probe, func(t *testing.T) {
			cfg, err := tiling.ParseName(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			_, err = renderProbeCfg(cfg, tt.probe)
			switch {
			case tt.errPart == "" && err != nil:
				t.Fatalf("RenderProbe: %v", err)
			case tt.errPart != "" && (err == nil || !strings.Contains(err.Error(), tt.errPart)):
				t.Fatalf("RenderProbe: %v, want an error containing %q", err, tt.errPart)
			}
		})
	}
}

// TestProbeFilesDefineHooksOnly: every probe file parses into the product
// set, and every probe has a file.
func TestProbeFilesDefineHooksOnly(t *testing.T) {
	t.Parallel()
	files, err := templates.ProbesFS.ReadDir("probes")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(Probes()) {
		t.Errorf("%d probe files, %d probes", len(files), len(Probes()))
	}
	for _, p := range Probes() {
		for _, c := range tiling.Catalog() {
			if p.Supports(c) != nil {
				continue
			}
			if _, err := probeTemplates(c, p.Name); err != nil {
				t.Error(err)
			}
		}
	}
}
