package manifest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestScoreOpsBuffers: each op of a _score kernel (tiling.ScoreOpVariants,
// which swigen_rt launches by these names) takes and returns exactly its
// kernel's buffers, and its float32 buffers are plain pointers (no tensor
// map gives them the config's dtype).
func TestScoreOpsBuffers(t *testing.T) {
	vs := tiling.ScoreOpVariants()
	if len(vs) == 0 {
		t.Fatal("no score ops: want the grouped kinds' (moe_gateup_score, moe_gateup_train_score, moe_dswiglu_out_score)")
	}
	for _, v := range vs {
		t.Run(v.Op, func(t *testing.T) {
			if spec, _ := tiling.KindOf(v.Kernel); !spec.Score {
				t.Fatalf("%s has score ops but no KindSpec.Score", v.Kernel)
			}
			c, _, err := tiling.HeuristicWhy(v.Kernel, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 1024, K: 512, I: 512}, v.StoreOut)
			if err != nil {
				t.Fatal(err)
			}
			c.Score = true
			if v.MajorB == tiling.MNMajor {
				c.MajorB = tiling.MNMajor
			}
			k, err := tiling.Check(c)
			if err != nil {
				t.Fatal(err)
			}
			m, err := New(k)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range m.Buffers {
				got = append(got, b.Name)
			}
			want := append(slices.Clone(v.Inputs), v.Outputs...)
			slices.Sort(got)
			slices.Sort(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s: the op's inputs and outputs (-) against its kernel %s's buffers (+):\n%s", v.Op, m.Name, d)
			}
			for _, f := range v.F32 {
				if !slices.Contains(want, f) {
					t.Errorf("%s: float32 buffer %s is none of the op's", v.Op, f)
				}
				for _, p := range m.Params {
					if p.Map != nil && p.Map.Buffer == f {
						t.Errorf("%s: float32 buffer %s has tensor map %s", v.Op, f, p.Name)
					}
				}
			}
		})
	}
}
