package gen

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// thinSample are configs outside the tuning spaces' first and last that
// TestThinUnitSASS always compiles, one or two per form: the L2 policy,
// the other raster, both clusters, the two-block consumer, stream-K under
// each schedule and kind (a 64-row decode tile, whose owner adds two
// parts a step, too), the StoreOut variants, fwd_down's residual and
// bwd_dswiglu's pipelined (narrow), tanh and 32-bit epilogues.
var thinSample = []string{
	"gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_l2k",
	"gemm_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_rn_g1_amn_bmn",
	"gemm_sm90a_bf16_m128n128k64_s6_c2x1_pingpong",
	"gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_sk_bmn",
	"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk_rn_g1_l2k",
	"gemm_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
	"fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong_sk",
	"fwd_gateup_sm90a_fp16_m128n128k64_s4_c2x1_pingpong_out",
	"fwd_gateup_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_sk_bmn",
	"fwd_down_sm90a_bf16_m128n128k64_s6_c1x2_pingpong_res",
	"fwd_down_sm90a_fp16_m128n256k64_s4_c1x1_cooperative_sk",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_e64x32s4_pipe",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_tanh",
	"bwd_dswiglu_sm90a_fp16_m128n192k64_s3_c1x1_pingpong_out",
	"bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_sk",
}

// thinExtras are the configs outside the tuning spaces that
// SWIGEN_THIN_ALL=1 adds to thinSample and the stream-K compile set.
var thinExtras = []string{
	"gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative",
	"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative",
	"fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_rn_g4_l2k",
	"fwd_down_sm90a_fp16_m128n256k64_s4_c1x1_cooperative_sk_res",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_e64x32s4",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_tanh",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c2x1_pingpong",
}

// thinKinds are the fused kinds whose tuning spaces (and StoreOut spaces)
// TestThinUnitSASS compiles under SWIGEN_THIN_ALL=1 beside gemm's.
var thinKinds = []tiling.Kernel{tiling.KernelFwdGateUp, tiling.KernelFwdDown, tiling.KernelBwdDSwiGLU}

// thinConfigs are the configs whose kind renders a thin unit. By default
// (CI's sample) the first and last config of each gemm space (both dtypes,
// K- and MN-major operands) and thinSample; SWIGEN_THIN_ALL=1 adds every
// config of the gemm spaces and of the fused kinds' spaces (both dtypes,
// inference and StoreOut), the sm_90a catalog, thinExtras and the stream-K
// compile set (several hundred configs, far over go test's default 10
// minutes on CI's 2 cores: run it with -timeout 120m after a change to
// templates/include or the sm_90a skeleton). The catalog's thin units are
// also held to its SASS pins by tests' TestCompileCatalog.
func thinConfigs(t *testing.T) []tiling.Checked {
	t.Helper()
	cs := thinCandidates(t, os.Getenv("SWIGEN_THIN_ALL") == "1")
	seen := map[string]bool{}
	var out []tiling.Checked
	for _, c := range cs {
		if seen[c.Name()] {
			continue
		}
		seen[c.Name()] = true
		k, err := tiling.Check(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if a, err := Render(k); err != nil {
			t.Fatalf("Render(%s): %v", c.Name(), err)
		} else if a.Include != nil {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		t.Fatal("no config renders a thin unit")
	}
	return out
}

// thinCandidates lists thinConfigs' configs before the thin filter, with
// repeats; all takes whole spaces and the fused kinds' and the catalog.
func thinCandidates(t *testing.T, all bool) []tiling.Config {
	t.Helper()
	var cs []tiling.Config
	add := func(s []tiling.Config) {
		if !all && len(s) > 2 {
			s = []tiling.Config{s[0], s[len(s)-1]}
		}
		cs = append(cs, s...)
	}
	for _, d := range []tiling.DType{tiling.BF16, tiling.FP16} {
		s := tiling.Space(tiling.KernelGEMM, tiling.ArchSM90a, d)
		add(s)
		add(tiling.WithMajors(s, tiling.MNMajor, tiling.MNMajor))
		for _, k := range thinKinds {
			if all {
				add(tiling.Space(k, tiling.ArchSM90a, d))
				add(tiling.SpaceStoreOut(k, tiling.ArchSM90a, d))
			}
		}
	}
	add(tiling.WithMajors(tiling.Space(tiling.KernelGEMM, tiling.ArchSM90a, tiling.FP16), tiling.KMajor, tiling.MNMajor))
	for _, c := range tiling.Catalog() {
		if all && c.Arch == tiling.ArchSM90a {
			cs = append(cs, c)
		}
	}
	names := thinSample
	if all {
		names = append(append(append([]string{}, thinSample...), thinExtras...), streamKConfigs...)
	}
	for _, n := range names {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

// TestThinUnitSASS proves that a thin unit moves no machine code: each
// config that renders one (Render) is also rendered whole from the
// skeleton templates (as a probe renders it, with no probe), both are
// compiled, and their SASS must be the same instruction for instruction,
// registers included (lines trimmed, as the SASS pins hash them). The
// skeleton keeps the kind for its probes, so this also holds the two texts
// of the kernel to one machine code.
func TestThinUnitSASS(t *testing.T) {
	tc := realToolchain(t)
	if tc.CUObjdump == "" || tc.NVDisasm == "" {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but toolchain %v has no cuobjdump/nvdisasm", tc)
		}
		t.Skipf("toolchain %v has no cuobjdump/nvdisasm", tc)
	}
	cache := t.TempDir()
	var mu sync.Mutex
	sem := make(chan struct{}, 2)
	for _, k := range thinConfigs(t) {
		t.Run(k.Name(), func(t *testing.T) {
			t.Parallel()
			thin, err := Render(k)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := RenderWhole(k)
			if err != nil {
				t.Fatal(err)
			}
			if whole.Include != nil || strings.Contains(string(whole.Source), "\n#include") {
				t.Fatalf("the whole rendering of %s includes headers", k.Name())
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			var sass [2]string
			for i, a := range []*Artifact{thin, whole} {
				ctx := context.Background()
				r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_90a", CacheDir: cache, Include: a.Include})
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				if sass[i], err = tc.SASS(ctx, r.Cubin); err != nil {
					t.Fatalf("SASS: %v", err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if d := cmp.Diff(trimSASS(sass[1]), trimSASS(sass[0])); d != "" {
				t.Errorf("%s: the thin unit's SASS differs from the whole kernel's (-whole +thin):\n%s", k.Name(), d)
			}
		})
	}
}

// trimSASS is cuobjdump -sass output with each line trimmed and blank
// lines dropped, one line per element.
func trimSASS(sass string) []string {
	var out []string
	for _, line := range strings.Split(sass, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
