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

// thinExtras are thin-unit configs outside the tuning spaces that
// TestThinUnitSASS compiles too: the L2 policy, the other raster, the
// other cluster and the two-block consumer.
var thinExtras = []string{
	"gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_l2k",
	"gemm_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_rn_g1_amn_bmn",
	"gemm_sm90a_bf16_m128n128k64_s6_c2x1_pingpong",
	"gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative",
	"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative",
}

// thinConfigs are the configs whose kind renders a thin unit, from the
// gemm spaces (both dtypes, K- and MN-major operands) and thinExtras.
// Each space gives its first and last config unless SWIGEN_THIN_ALL=1
// asks for all of them (72 configs, 144 compiles: over go test's default
// 10 minutes on CI's 2 cores; run it with -timeout 60m after a change to
// templates/include or the gemm skeleton).
func thinConfigs(t *testing.T) []tiling.Checked {
	t.Helper()
	all := os.Getenv("SWIGEN_THIN_ALL") == "1"
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
	}
	add(tiling.WithMajors(tiling.Space(tiling.KernelGEMM, tiling.ArchSM90a, tiling.FP16), tiling.KMajor, tiling.MNMajor))
	for _, n := range thinExtras {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
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
