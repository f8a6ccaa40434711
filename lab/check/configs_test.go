package check

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestVerifyConfigsBuildFails: a config that does not build is a FAIL
// line and a record with its error, and the run goes on to the next.
func TestVerifyConfigsBuildFails(t *testing.T) {
	t.Parallel()
	a, _ := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 4096, K: 768, I: 4608})
	b, _ := tiling.Heuristic(tiling.KernelGEMM, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 4096, K: 768, I: 4608})
	var out, log bytes.Buffer
	recs, failed, err := VerifyConfigs(context.Background(), &Env{}, tiling.ArchSM90a, []tiling.Config{a, b}, RaggedShapes(),
		RunOptions{Fused: true, Unfused: true, Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Config: a.Name(), Error: "check: build " + a.Name() + ": no builder"},
		{Config: b.Name(), Error: "check: build " + b.Name() + ": no builder"},
	}
	if diff := cmp.Diff(want, recs); diff != "" || failed != 2 {
		t.Errorf("records (-want +got), %d failed:\n%s", failed, diff)
	}
	if got := strings.Count(out.String(), "FAIL "); got != 2 || !strings.Contains(out.String(), "FAIL "+a.Name()+": build/load: ") {
		t.Errorf("out:\n%s", out.String())
	}
}

func TestNoUnfusedPathError(t *testing.T) {
	t.Parallel()
	var err error = &NoUnfusedPathError{Config: "gemm_x"}
	var nu *NoUnfusedPathError
	if !errors.As(err, &nu) || err.Error() != "verify: --path unfused: gemm_x has no unfused path" {
		t.Errorf("err %q", err)
	}
}
