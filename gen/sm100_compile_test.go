package gen

import (
	"context"
	"os"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// sm100Opcodes are the SASS opcodes every sm_100a cubin (every kind: the
// skeleton is shared) must contain (ptx.md §D2): tcgen05.mma,
// tcgen05.commit, tcgen05.ld, TMA loads and stores; plus the 2-CTA forms
// and, with CLC, the try_cancel.
func sm100Opcodes(c tiling.Config) []string {
	want := []string{"UTCHMMA", "UTCBAR", "LDTM", "UTMALDG", "UTMASTG"}
	if c.Schedule == tiling.TwoCTA {
		want = append(want, "UTCHMMA.2CTA", "UTCBAR.2CTA.MULTICAST", "UTMALDG.2D.2CTA")
	}
	if c.Scheduler == tiling.CLCScheduler {
		want = append(want, "UGETNEXTWORKID")
	}
	return want
}

// TestCompileSM100Catalog renders every sm_100a catalog config, compiles it
// with ptxas for sm_100a (no spills, no stack frame, no hazard notes) and
// checks the SASS opcodes. No sm_100 GPU runs these kernels: this is the
// compile-verification tier.
func TestCompileSM100Catalog(t *testing.T) {
	tc := realToolchain(t)
	haveSASS := tc.CUObjdump != "" && tc.NVDisasm != ""
	if !haveSASS && os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
		t.Fatalf("toolchain %v lacks cuobjdump/nvdisasm", tc)
	}
	cache := t.TempDir()
	n := 0
	for _, c := range tiling.Catalog() {
		if c.Arch != tiling.ArchSM100a {
			continue
		}
		n++
		t.Run(c.Name(), func(t *testing.T) {
			t.Parallel()
			a, err := renderCfg(c)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			ctx := context.Background()
			r, err := tc.Compile(ctx, a.Name, a.Source, toolchain.CompileOptions{Arch: "sm_100a", CacheDir: cache, Include: a.Include})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if f := r.Report.Function(a.Name); f == nil {
				t.Errorf("ptxas report has no entry %s", a.Name)
			}
			if !haveSASS {
				t.Skipf("compiled; skipping SASS check: %v has no cuobjdump/nvdisasm", tc)
			}
			sass, err := tc.SASS(ctx, r.Cubin)
			if err != nil {
				t.Fatalf("SASS: %v", err)
			}
			if err := toolchain.CheckOpcodes(sass, sm100Opcodes(c)); err != nil {
				t.Error(err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no sm_100a configs in tiling.Catalog()")
	}
}
