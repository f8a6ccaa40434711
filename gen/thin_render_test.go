package gen

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// includeLine matches a quoted #include and a #define of SW_KIND, whose
// file a walk includes.
var includeLine = regexp.MustCompile(`(?m)^#(?:include|define SW_KIND) "([^"]+)"`)

// TestThinUnitsRender renders one config per thin form with no compiler:
// each renders a unit of at most 160 lines that names its kind's parts and
// scheduler's walk, every file its include chain names is in the library,
// and the forms the library has no body for (overlap, grouped, sm_100a)
// render whole.
func TestThinUnitsRender(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string // library files the unit's include chain must reach
	}{
		{"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative", []string{"swigen_v1_sm90a_gemm.inc", "swigen_v1_sm90a_static.inc"}},
		{"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk", []string{"swigen_v1_sm90a_streamk.cuh", "swigen_v1_sm90a_streamk.inc"}},
		{"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out", []string{"swigen_v1_sm90a_fwd_gateup.inc", "swigen_v1_sm90a_ops.cuh"}},
		{"fwd_down_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk_bmn_res", []string{"swigen_v1_sm90a_fwd_down.inc", "swigen_v1_sm90a_epi_tile.inc"}},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_e64x32s4_pipe", []string{"swigen_v1_sm90a_bwd_dswiglu_pipe.inc", "swigen_v1_sm90a_bwd_dswiglu_pipe_ld.inc"}},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_tanh", []string{"swigen_v1_sm90a_bwd_dswiglu_epi.inc", "swigen_v1_dswiglu_tanh.cuh"}},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap", nil},
		{"moe_gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong", nil},
		{"gemm_sm100a_bf16_m128n256k64_s4_c1x1_1cta", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tiling.ParseName(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := renderCfg(c)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if tc.files == nil {
				if a.Include != nil || strings.Contains(string(a.Source), "\n#include") {
					t.Fatalf("%s renders a thin unit; want the whole kernel", tc.name)
				}
				return
			}
			if a.Include == nil {
				t.Fatalf("%s renders whole; want a thin unit", tc.name)
			}
			if n := strings.Count(string(a.Source), "\n"); n > 160 {
				t.Errorf("the unit has %d lines; want at most 160", n)
			}
			reached := includeClosure(t, a.Include, string(a.Source))
			var missing []string
			for _, f := range tc.files {
				if !reached[f] {
					missing = append(missing, f)
				}
			}
			if d := cmp.Diff([]string(nil), missing); d != "" {
				t.Errorf("library files the unit does not reach (-want +got):\n%s", d)
			}
		})
	}
}

// includeClosure follows the quoted includes of src through the library
// lib and returns every file reached; a name lib lacks fails the test.
func includeClosure(t *testing.T, lib fs.FS, src string) map[string]bool {
	t.Helper()
	reached := map[string]bool{}
	queue := []string{src}
	for len(queue) > 0 {
		text := queue[0]
		queue = queue[1:]
		for _, m := range includeLine.FindAllStringSubmatch(text, -1) {
			if reached[m[1]] {
				continue
			}
			b, err := fs.ReadFile(lib, m[1])
			if err != nil {
				t.Fatalf("%s is not in the library: %v", m[1], err)
			}
			reached[m[1]] = true
			queue = append(queue, string(b))
		}
	}
	return reached
}
