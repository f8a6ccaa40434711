package pick

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestJobs: shapes that share the heuristic's config share a job (with
// the heuristic's reasons); a fixed selection times every config at every
// shape; --tuned's choice replaces the heuristic's, its failure a
// UsageError naming the command.
func TestJobs(t *testing.T) {
	t.Parallel()
	s1 := tiling.Shape{M: 16384, K: 768, I: 4608}
	large := tiling.Shape{M: 8192, K: 4096, I: 14336}
	sel := Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Shape: "16384,768,4608"}
	type job struct {
		Config string
		Shapes []tiling.Shape
		Notes  int
	}
	flat := func(js []Job) []job {
		var out []job
		for _, j := range js {
			out = append(out, job{j.Config.Name(), j.Shapes, len(j.Notes)})
		}
		return out
	}
	pp := "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k"
	lg := "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong"
	js, err := sel.Jobs("bench", tiling.ArchSM90a, []tiling.Shape{s1, large, s1}, false)
	if d := cmp.Diff([]job{{pp, []tiling.Shape{s1, s1}, 2}, {lg, []tiling.Shape{large}, 1}}, flat(js)); err != nil || d != "" {
		t.Errorf("per shape: %v (-want +got):\n%s", err, d)
	}
	js, err = sel.Jobs("bench", tiling.ArchSM90a, []tiling.Shape{s1, large}, true)
	if d := cmp.Diff([]job{{pp, []tiling.Shape{s1, large}, 0}}, flat(js)); err != nil || d != "" {
		t.Errorf("fixed: %v (-want +got):\n%s", err, d)
	}
	want, _ := tiling.ParseName(lg)
	tuned := func(path string, heur tiling.Config, sh tiling.Shape, storeOut bool) (tiling.Config, string, error) {
		if path == "bad.json" {
			return heur, "", errors.New("--tuned bad.json: corrupt")
		}
		return want, "tuned: " + path, nil
	}
	sel.TunedConfig = tuned
	sel.Tuned = "db.json"
	js, err = sel.Jobs("bench", tiling.ArchSM90a, []tiling.Shape{s1}, false)
	if d := cmp.Diff([]job{{lg, []tiling.Shape{s1}, 1}}, flat(js)); err != nil || d != "" {
		t.Errorf("tuned: %v (-want +got):\n%s", err, d)
	}
	sel.Tuned = "bad.json"
	_, err = sel.Jobs("bench", tiling.ArchSM90a, []tiling.Shape{s1}, false)
	if u := (*UsageError)(nil); !errors.As(err, &u) || !strings.HasPrefix(err.Error(), "bench: --tuned bad.json") {
		t.Errorf("tuned failure: %v, want a UsageError \"bench: --tuned bad.json...\"", err)
	}
}
