package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

func TestList(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "list")
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	for _, c := range tiling.Catalog() {
		if !strings.Contains(out, c.Name()) {
			t.Errorf("list lacks catalog config %s", c.Name())
		}
	}
	if !strings.Contains(out, "NAME") || !strings.Contains(out, "SMEM") || !strings.Contains(out, "THREADS") {
		t.Errorf("no table header:\n%s", out)
	}
	if strings.Contains(out, "Space (") {
		t.Errorf("space printed without --space:\n%s", out)
	}
}

// TestListGroupedKind checks that list --kernel of a grouped kind says
// why it lists no catalog config, and lists its tuning space (the ring
// depths and the k128 rings tune measures).
func TestListGroupedKind(t *testing.T) {
	t.Parallel()
	k := string(tiling.GroupedKernels()[0])
	code, out, errOut := runCLI(t, "list", "--space", "--kernel", k)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, k+" is a grouped kind: not in the catalog yet") {
		t.Errorf("no note on the grouped kind; stderr:\n%s", errOut)
	}
	for _, want := range []string{"Catalog (0 configs)", k + "_sm90a_bf16_m128n128k64_s3_c1x1_pingpong", k + "_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", k + "_sm90a_bf16_m128n128k128_s3_c1x1_pingpong"} {
		if !strings.Contains(out, want) {
			t.Errorf("list --space --kernel %s lacks %s:\n%s", k, want, out)
		}
	}
}

func TestListJSON(t *testing.T) {
	t.Parallel()
	k, a, d := tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16
	code, out, errOut := runCLI(t, "list", "--json", "--space", "--kernel", string(k), "--arch", string(a), "--dtype", string(d))
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	var got listOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	names := func(rs []listRow) []string {
		var n []string
		for _, r := range rs {
			n = append(n, r.Name)
			if r.Threads <= 0 || r.SmemBytes <= 0 || tiling.Config(r.Config).Name() != r.Name {
				t.Errorf("row %+v: bad threads, smem or config", r)
			}
		}
		return n
	}
	var wantCat, wantSpace []string
	for _, c := range pick.FilterConfigs(tiling.Catalog(), []tiling.Kernel{k}, []tiling.Arch{a}, []tiling.DType{d}) {
		wantCat = append(wantCat, c.Name())
	}
	for _, c := range tiling.Space(k, a, d) {
		wantSpace = append(wantSpace, c.Name())
	}
	if diff := cmp.Diff(wantCat, names(got.Catalog)); diff != "" {
		t.Errorf("catalog (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSpace, names(got.Space)); diff != "" {
		t.Errorf("space (-want +got):\n%s", diff)
	}
}

func TestListSpaceTable(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "list", "--space", "--arch", "sm_100a")
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "Space (") {
		t.Errorf("no space section:\n%s", out)
	}
	if strings.Contains(out, "_sm90a_") {
		t.Errorf("--arch sm_100a lists sm_90a configs:\n%s", out)
	}
}

// TestListJSONKeys: list --json uses one key style, snake_case, the
// configs' fields included, and every field of tiling.Config is there.
func TestListJSONKeys(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "list", "--json", "--space", "--kernel", "fwd_down", "--arch", "sm_100a")
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				seen[k] = true
				if !snake.MatchString(k) {
					t.Errorf("key %q is not snake_case", k)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	for _, k := range []string{"tile_m", "cluster_n", "epi_stages", "major_b", "scheduler", "store_out"} {
		if !seen[k] {
			t.Errorf("no key %q in list --json", k)
		}
	}
	for _, tt := range [][2]string{{"TileM", "tile_m"}, {"DType", "dtype"}, {"CLCStages", "clc_stages"}, {"L2KeepOperands", "l2_keep_operands"}, {"SwizzleGroup", "swizzle_group"}} {
		if got := snakeKey(tt[0]); got != tt[1] {
			t.Errorf("snakeKey(%s) = %s, want %s", tt[0], got, tt[1])
		}
	}
}
