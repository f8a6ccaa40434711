package tiling

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpaceProperties(t *testing.T) {
	t.Parallel()
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				sp := Space(k, a, d)
				name := string(k) + "/" + string(a) + "/" + string(d)
				if len(sp) < 10 || len(sp) > 99 {
					t.Errorf("%s: %d configs, want tens", name, len(sp))
				}
				lim, _ := LimitsFor(a)
				seen := map[string]bool{}
				var names []string
				for _, c := range sp {
					n := c.Name()
					if err := c.Validate(); err != nil {
						t.Errorf("%s: invalid:\n%v", n, err)
					}
					if c.SmemBytes() > lim.SmemPerBlock {
						t.Errorf("%s: smem %d > %d", n, c.SmemBytes(), lim.SmemPerBlock)
					}
					if seen[n] {
						t.Errorf("%s: duplicate name", n)
					}
					seen[n] = true
					names = append(names, n)
					if c.Kernel != k || c.Arch != a || c.DType != d || c.MajorA != KMajor || c.MajorB != KMajor || c.StoreOut {
						t.Errorf("%s: not a default-major config of the requested kind", n)
					}
				}
				if !slices.IsSorted(names) {
					t.Errorf("%s: not sorted by name", name)
				}
				if d := cmp.Diff(sp, Space(k, a, d)); d != "" {
					t.Errorf("%s: not deterministic:\n%s", name, d)
				}
			}
		}
	}
	if Space(KernelBwdDSwiGLU, "sm_80", BF16) != nil || Space(KernelBwdDSwiGLU, ArchSM90a, "fp8") != nil || Space("x", ArchSM90a, BF16) != nil {
		t.Error("Space of an unknown kernel, arch or dtype must be nil")
	}
}

func TestSpaceStagePruning(t *testing.T) {
	t.Parallel()
	// At most two stage counts per (tile, schedule, cluster), and they are
	// adjacent with the larger one the deepest that fits.
	type group struct {
		stages []int
		max    int
	}
	byTile := map[string]*group{}
	for _, c := range Space(KernelBwdDSwiGLU, ArchSM90a, BF16) {
		k := c
		k.Stages = 0
		g := byTile[k.Name()]
		if g == nil {
			g = &group{max: min(6, c.MaxStages())}
			byTile[k.Name()] = g
		}
		g.stages = append(g.stages, c.Stages)
	}
	for n, g := range byTile {
		slices.Sort(g.stages)
		want := []int{g.max - 1, g.max}
		if g.max == 3 {
			want = []int{3}
		}
		if d := cmp.Diff(want, g.stages); d != "" {
			t.Errorf("%s: stages (-want +got):\n%s", n, d)
		}
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	cat := Catalog()
	count := map[string]int{}
	var names []string
	has := map[string]bool{}
	for _, c := range cat {
		n := c.Name()
		names = append(names, n)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: invalid:\n%v", n, err)
		}
		count[string(c.Kernel)+"/"+string(c.Arch)+"/"+string(c.DType)]++
		has[string(c.Schedule)] = true
		has["c"+string(rune('0'+c.ClusterM))+string(rune('0'+c.ClusterN))] = true
		has["b"+string(c.MajorB)] = true
		if c.StoreOut {
			has["out/"+string(c.Arch)] = true
		}
	}
	for k, n := range count {
		if n > 6 {
			t.Errorf("%s: %d catalog configs, want <= 6", k, n)
		}
	}
	if count["gemm/sm_90a/bf16"] != 2 {
		t.Errorf("want 2 sm_90a gemm configs, got %d", count["gemm/sm_90a/bf16"])
	}
	for _, want := range []string{"pingpong", "cooperative", "1cta", "2cta", "c11", "c21", "c12", "bk", "bmn", "out/sm_90a", "out/sm_100a"} {
		if !has[want] {
			t.Errorf("catalog does not cover %s", want)
		}
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("catalog names not sorted and unique:\n%s", strings.Join(names, "\n"))
	}
}
