package tests

import (
	"context"
	"testing"
	"time"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// compileJobs bounds concurrent nvcc/ptxas runs. ptxas on one of these
// kernels is single-threaded and CI has two cores; more jobs would only
// contend with the other packages' tests.
const compileJobs = 2

// compileTimeout bounds one kernel's compile; a ptxas that runs this long
// is a bug in the generated code, and the test should say so, not hang.
const compileTimeout = 5 * time.Minute

// sm90Opcodes are SASS opcodes every sm_90a bwd_dswiglu cubin must contain:
// the wgmma (HGMMA), TMA loads and stores (UTMALDG, UTMASTG) and mbarrier
// operations (SYNCS). Missing ones mean the compiler rewrote or dropped a
// path the kernel depends on, e.g. wgmma serialized into something else.
var sm90Opcodes = []string{"HGMMA", "UTMALDG", "UTMASTG", "SYNCS"}

// TestCompileCatalog renders every tiling.Catalog() config of both archs
// and compiles it with the real toolchain. Compile fails on register
// spills, a stack frame or ptxas hazard notes (e.g. serialized wgmma), so a
// pass means every catalog kernel builds clean. sm_90a cubins are also
// checked for their key SASS opcodes, and every cubin's SASS against the
// hashes in testdata/sass_sha256.json (sassGolden).
func TestCompileCatalog(t *testing.T) {
	t.Parallel()
	tc := findToolchain(t)
	haveSASS := tc.CUObjdump != "" && tc.NVDisasm != ""
	if !haveSASS && requireCompiler() {
		t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but toolchain %v has no cuobjdump/nvdisasm for the SASS checks", tc)
	}
	// A fresh cache: the test is about compiling, so every run compiles
	// (the user's cache could hold a result from before a compiler change
	// that the cache key does not see, such as a wheel reinstalled in place).
	cache := t.TempDir()
	sem := make(chan struct{}, compileJobs)
	cat := tiling.Catalog()
	if len(cat) == 0 {
		t.Fatal("tiling.Catalog() is empty")
	}
	// The overlap schedule's catalog entry is 128x192 1x1 (bf16, fp16);
	// its other shapes must compile clean too: accumulators and the
	// previous tile's dout in the consumers' registers, no trap in the
	// consumers (C7518), and under a cluster the producer's multicast
	// loads in 40 registers.
	//
	// Ping-pong 128x192 holds 192 accumulators per consumer thread in 232
	// registers: the heuristic's configs (inference and training) and the
	// register-tight forms of the tuning space (a cluster's multicast
	// producer, StoreOut's third output, fp16 with W_down [K,I]) must build
	// clean as well: the ldmatrix epilogue first spilled 8 bytes in the
	// StoreOut one, which only tune's compile caught.
	for _, name := range []string{"bwd_dswiglu_sm90a_fp16_m128n128k64_s5_c1x1_overlap_bmn", "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x2_overlap",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c2x1_overlap_bmn",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_out_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s3_c1x1_pingpong_out", "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c2x1_pingpong_rn_g4_l2k",
		"bwd_dswiglu_sm90a_fp16_m128n192k64_s4_c1x2_pingpong_bmn",
		// 64x32 epilogue sub-tiles (docs/PERFORMANCE.md#seed-epilogue-levers):
		// twice the sub-tiles unrolled, and the pipelined epilogue.
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_e64x32s4_out_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_pipe_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n256k64_s3_c1x1_cooperative_e64x32s4_pipe",
		// The examples' gemm.
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative"} {
		ov, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		cat = append(cat, ov)
	}
	var hashes sassHashes
	t.Cleanup(func() {
		if haveSASS {
			hashes.check(t, len(cat))
		}
	})
	for _, c := range cat {
		t.Run(c.Name(), func(t *testing.T) {
			t.Parallel()
			a := render(t, c)
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), compileTimeout)
			defer cancel()
			start := time.Now()
			r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: string(c.Arch), CacheDir: cache, Include: a.Include})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			f := r.Report.Function(a.Name)
			if f == nil {
				t.Fatalf("ptxas report has no entry %s", a.Name)
			}
			t.Logf("compiled in %v: %d registers", time.Since(start).Round(time.Millisecond), f.Registers)
			if !haveSASS {
				t.Skipf("compiled clean; skipping the SASS checks: toolchain %v has no cuobjdump/nvdisasm", tc)
			}
			sass, err := tc.SASS(ctx, r.Cubin)
			if err != nil {
				t.Fatalf("SASS: %v", err)
			}
			hashes.add(c.Name(), sass)
			if c.Arch != tiling.ArchSM90a {
				return
			}
			if err := toolchain.CheckOpcodes(sass, sm90Opcodes); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCompileProbes builds every probe on every sm_90a catalog config it
// supports, held to the product's build check (no spills, no stack, no
// hazard notes): a probe that accepts a config must build for it, or
// verify and bench would fail on the GPU machine instead of here.
func TestCompileProbes(t *testing.T) {
	t.Parallel()
	tc := findToolchain(t)
	cache := t.TempDir()
	sem := make(chan struct{}, compileJobs)
	for _, p := range gen.Probes() {
		for _, c := range tiling.Catalog() {
			if p.Supports(c) != nil {
				continue
			}
			t.Run(manifest.ProbedName(c, p.Name), func(t *testing.T) {
				t.Parallel()
				a, err := gen.RenderProbe(tilingtest.Check(t, c), p.Name)
				if err != nil {
					t.Fatal(err)
				}
				sem <- struct{}{}
				defer func() { <-sem }()
				ctx, cancel := context.WithTimeout(context.Background(), compileTimeout)
				defer cancel()
				if _, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: string(c.Arch), CacheDir: cache, Include: a.Include}); err != nil {
					t.Fatalf("Compile: %v", err)
				}
			})
		}
	}
}
