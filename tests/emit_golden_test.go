package tests

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const goldenDir = "testdata/golden"

// goldenConfigs picks three representative sm_90a configs from the catalog:
// the ping-pong default (K-major B), cooperative with an MN-major B (the
// other load path and descriptors), and ping-pong with StoreOut (the third
// epilogue output). They are chosen by role rather than by name so that a
// change of the catalog's stage counts moves the goldens along (run with
// -update) instead of silently testing configs the catalog dropped. More
// are pinned by name: the overlap schedule's heuristic pick, a stream-K
// gemm, the 64x32 epilogue sub-tiles (plain and _pipe), and the grouped
// backward with store_out.
func goldenConfigs(t *testing.T) []tiling.Config {
	t.Helper()
	roles := []struct {
		role string
		is   func(tiling.Config) bool
	}{
		{"pingpong bf16 k-major", func(c tiling.Config) bool {
			return c.Schedule == tiling.PingPong && c.DType == tiling.BF16 && c.MajorB == tiling.KMajor && !c.StoreOut
		}},
		{"cooperative bf16 mn-major", func(c tiling.Config) bool {
			return c.Schedule == tiling.Cooperative && c.DType == tiling.BF16 && c.MajorB == tiling.MNMajor && !c.StoreOut
		}},
		{"pingpong bf16 store_out", func(c tiling.Config) bool {
			return c.Schedule == tiling.PingPong && c.DType == tiling.BF16 && c.StoreOut
		}},
	}
	var out []tiling.Config
	for _, r := range roles {
		i := slices.IndexFunc(tiling.Catalog(), func(c tiling.Config) bool {
			return c.Arch == tiling.ArchSM90a && c.Kernel == tiling.KernelBwdDSwiGLU && r.is(c)
		})
		if i < 0 {
			t.Fatalf("tiling.Catalog() has no sm_90a %s config to pin", r.role)
		}
		out = append(out, tiling.Catalog()[i])
	}
	// The overlap schedule at the heuristic's tile, the stream-K scheduler
	// (a gemm, cooperative), and the product tile with 64x32 epilogue
	// sub-tiles (64-byte swizzle, 4 slots), without and with the pipelined
	// epilogue, pinned by name.
	for _, name := range []string{
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap",
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k",
		"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_pipe_l2k",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
		// The router score: the forward's scaled out, the backward's scaled
		// dSwiGLU input and the dscore partials.
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_score",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
	} {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestEmitGolden pins the rendered source of representative sm_90a
// kernels, so every change to the generated CUDA shows up in review as a
// diff of testdata/golden. Regenerate with
//
//	go test ./tests -run Golden -update
func TestEmitGolden(t *testing.T) {
	cfgs := goldenConfigs(t)
	want := map[string]bool{}
	for _, c := range cfgs {
		name := c.Name() + ".cu"
		want[name] = true
		t.Run(c.Name(), func(t *testing.T) {
			a := render(t, c)
			path := filepath.Join(goldenDir, name)
			if *update {
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, a.Source, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./tests -run Golden -update)", err)
			}
			if d := firstDiff(string(golden), string(a.Source)); d != "" {
				t.Errorf("%s differs from the rendered source (run go test ./tests -run Golden -update if the change is intended):\n%s", path, d)
			}
		})
	}
	// Files of configs no longer pinned would otherwise linger and mislead.
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatalf("%v (run go test ./tests -run Golden -update)", err)
	}
	for _, e := range entries {
		if want[e.Name()] {
			continue
		}
		path := filepath.Join(goldenDir, e.Name())
		if *update {
			if err := os.Remove(path); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s: stale golden file of no pinned config (run go test ./tests -run Golden -update)", path)
	}
}

// diffContext is how many lines around the first difference firstDiff
// shows: enough to recognize the spot, few enough to read.
const diffContext = 4

// firstDiff returns "" when want and got are equal, or else where they
// first differ and a go-cmp diff of the lines around that spot. A full
// diff of two multi-thousand-line sources is unreadable in a test log;
// the first difference is where to look.
func firstDiff(want, got string) string {
	if want == got {
		return ""
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	lo := max(0, i-diffContext)
	window := func(ls []string) []string {
		return ls[min(lo, len(ls)):min(i+diffContext+1, len(ls))]
	}
	return fmt.Sprintf("first difference at line %d (golden %d lines, rendered %d lines); lines %d.. (-golden +rendered):\n%s",
		i+1, len(wl), len(gl), lo+1, cmp.Diff(window(wl), window(gl)))
}

func TestFirstDiff(t *testing.T) {
	t.Parallel()
	if d := firstDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("equal inputs: %q, want empty", d)
	}
	var want, got []string
	for i := range 50 {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	got = slices.Clone(want)
	got[30] = "changed"
	d := firstDiff(strings.Join(want, "\n"), strings.Join(got, "\n"))
	for _, s := range []string{"first difference at line 31", "lines 27..", `"line 30"`, `"changed"`} {
		if !strings.Contains(d, s) {
			t.Errorf("firstDiff output lacks %q:\n%s", s, d)
		}
	}
	if strings.Contains(d, `"line 10"`) || strings.Contains(d, `"line 40"`) {
		t.Errorf("firstDiff shows lines far from the difference:\n%s", d)
	}
	// A truncated render differs where it ends.
	if d := firstDiff("a\nb\nc", "a\nb"); !strings.Contains(d, "line 3") {
		t.Errorf("truncation: %s", d)
	}
}

// TestRenderDeterministic renders every catalog config twice, once of
// them concurrently with the other configs' renders, and wants identical
// bytes and manifests: emitted files are committed and cached by content,
// so a render that depends on map order, time or shared state would churn.
func TestRenderDeterministic(t *testing.T) {
	t.Parallel()
	cat := tiling.Catalog()
	first := make([]*gen.Artifact, len(cat))
	for i, c := range cat {
		first[i] = render(t, c)
	}
	second := make([]*gen.Artifact, len(cat))
	errs := make([]error, len(cat))
	var wg sync.WaitGroup
	for i, c := range cat {
		k := tilingtest.Check(t, c)
		wg.Go(func() { second[i], errs[i] = gen.Render(k) })
	}
	wg.Wait()
	for i, c := range cat {
		if errs[i] != nil {
			t.Errorf("second Render(%s): %v", c.Name(), errs[i])
			continue
		}
		if !bytes.Equal(first[i].Source, second[i].Source) {
			t.Errorf("%s: two renders differ:\n%s", c.Name(), firstDiff(string(first[i].Source), string(second[i].Source)))
		}
		if d := cmp.Diff(first[i].Manifest, second[i].Manifest); d != "" {
			t.Errorf("%s: two manifests differ (-first +second):\n%s", c.Name(), d)
		}
	}
}
