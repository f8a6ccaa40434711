package launch

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// TestScorePartCols reads the partials' width off the manifest: one
// column per n-block of I (ragged I rounds up); a config without score
// has no such buffer and the error says which config writes it.
func TestScorePartCols(t *testing.T) {
	cases := []struct {
		name string
		i    int
		want int
		err  string
	}{
		{"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score", 768, 6, ""},
		{"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score", 200, 2, ""},
		{"moe_bwd_dswiglu_sm90a_bf16_m64n128k64_s4_c1x1_pingpong_bmn_out_score", 136, 2, ""},
		{"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out", 768, 0, "only a moe_bwd_dswiglu config with score (_score)"},
	}
	for _, c := range cases {
		cfg, err := tiling.ParseName(c.name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := manifest.New(tilingtest.Check(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ScorePartCols(&m, manifest.Sizes{"T": 100, "K": 64, "I": c.i, "E": 4})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s I=%d: ScorePartCols = %d, %v; want %d", c.name, c.i, got, err, c.want)
		}
	}
}

// TestSumScorePartials sums each row in column order and refuses a buffer
// that does not match its shape.
func TestSumScorePartials(t *testing.T) {
	got, err := SumScorePartials([]float32{1, 2, 3, -1, 0.5, 0.25}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]float32{6, -0.25}, got); d != "" {
		t.Errorf("SumScorePartials (-want +got):\n%s", d)
	}
	for _, c := range []struct{ n, t, cols int }{{5, 2, 3}, {0, 0, 0}, {6, -1, 3}} {
		if _, err := SumScorePartials(make([]float32, c.n), c.t, c.cols); err == nil || !strings.Contains(err.Error(), "sum score partials") {
			t.Errorf("%d partials, t=%d cols=%d: err = %v, want the rule", c.n, c.t, c.cols, err)
		}
	}
}

// TestSumScorePartialsShared sums python/tests/testdata/score_partials.json's
// cases and wants their fp32 bits: the file pins the order and the fp32
// rounding of every add, and moe_plan.sum_score_partials reads it too, so
// the Go and Python sums of the same partials agree bit for bit.
func TestSumScorePartialsShared(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(pyGoldenDir, "score_partials.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Why        string
			Part       [][]float32
			DScoreBits []uint32 `json:"dscore_bits"`
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Cases {
		var flat []float32
		for _, row := range c.Part {
			flat = append(flat, row...)
		}
		got, err := SumScorePartials(flat, len(c.Part), len(c.Part[0]))
		if err != nil {
			t.Fatalf("%s: %v", c.Why, err)
		}
		bits := make([]uint32, len(got))
		for i, v := range got {
			bits[i] = math.Float32bits(v)
		}
		if d := cmp.Diff(c.DScoreBits, bits); d != "" {
			t.Errorf("%s: SumScorePartials bits (-want +got):\n%s", c.Why, d)
		}
	}
}
