package ref

import (
	"context"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// TestNaiveSourceCompiles builds naive_bwd.cu with the local CUDA compiler
// when one is installed (no GPU needed).
func TestNaiveSourceCompiles(t *testing.T) {
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		t.Skipf("no CUDA compiler here: %v", err)
	}
	br, err := tc.Compile(context.Background(), "swigen_ref_bwd_dswiglu", NaiveBwdSource(), toolchain.CompileOptions{Arch: string(tiling.ArchSM90a), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		if !strings.Contains(string(br.PTX), ".entry "+naiveEntry(dt)) {
			t.Errorf("PTX lacks entry %s", naiveEntry(dt))
		}
	}
	// Independence from the fast kernels' math: accurate expf, no ex2.approx
	// sigmoid and no cvt-based packing.
	for _, banned := range []string{"cvt.rn.bf16", "cvt.rn.f16"} {
		if strings.Contains(string(br.PTX), banned) {
			t.Errorf("naive PTX uses %s", banned)
		}
	}
}

func TestNaiveLaunch(t *testing.T) {
	t.Parallel()
	cfg, err := naiveLaunch(100000, 768, 4608)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Grid != [3]uint32{18, maxGridY, 1} || cfg.Block != [3]uint32{naiveBlock, 1, 1} {
		t.Errorf("launch = %+v", cfg)
	}
	if _, err := naiveLaunch(1, 0, 1); err == nil {
		t.Error("K=0: want error")
	}
}
