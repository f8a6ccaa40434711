package ref

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/tiling"
)

// knownTol is the per-element relative tolerance against the known answers,
// which were computed independently in float64.
const knownTol = 1e-12

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func flatten(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// checkClose fails on the first element off by more than tol relative (with
// an absolute floor far below any known answer's magnitude).
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(got[i] - want[i]); d > tol*math.Abs(want[i])+1e-300 || math.IsNaN(got[i]) {
			t.Errorf("%s[%d] = %.17g, want %.17g (rel err %.3g)", what, i, got[i], want[i], d/math.Abs(want[i]))
			return
		}
	}
}

type bwdCase struct {
	M, K, I int
	Dy      [][]float64 `json:"dy"`
	WDown   [][]float64 `json:"W_down"`
	De      [][]float64 `json:"de"`
	GradDe  [][]float64 `json:"grad_de"`
	Out     [][]float64 `json:"out"`
}

func TestBwdKnownAnswers(t *testing.T) {
	t.Parallel()
	var f struct{ Cases []bwdCase }
	readJSON(t, "bwd_dswiglu_small.json", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range f.Cases {
		for _, mn := range []bool{false, true} {
			name := map[bool]string{false: "k-major", true: "mn-major"}[mn]
			t.Run(name, func(t *testing.T) {
				p := BwdProblem{M: c.M, K: c.K, I: c.I, Dy: flatten(c.Dy), WDown: flatten(c.WDown), De: flatten(c.De), WDownMNMajor: mn}
				if mn {
					p.WDown = TransposeRowMajor(p.WDown, c.I, c.K)
				}
				if err := p.Validate(); err != nil {
					t.Fatal(err)
				}
				r := BwdDSwiGLU(p)
				checkClose(t, "grad_de", r.GradDe, flatten(c.GradDe), knownTol)
				checkClose(t, "out", r.Out, flatten(c.Out), knownTol)
			})
		}
	}
}

func TestDSwiGLUKnownAnswers(t *testing.T) {
	t.Parallel()
	var f struct {
		Cases []struct{ Dout, Left, Gate, Dleft, Dgate, Out float64 }
	}
	readJSON(t, "dswiglu_elementwise.json", &f)
	extreme := 0
	for _, c := range f.Cases {
		dl, dg, out := DSwiGLU(c.Dout, c.Left, c.Gate)
		checkClose(t, "dleft", []float64{dl}, []float64{c.Dleft}, knownTol)
		checkClose(t, "dgate", []float64{dg}, []float64{c.Dgate}, knownTol)
		checkClose(t, "out", []float64{out}, []float64{c.Out}, knownTol)
		if math.Abs(c.Gate) >= 20 {
			extreme++
		}
	}
	if extreme == 0 {
		t.Error("known answers lack extreme gates (|gate| >= 20)")
	}
}

// naiveBwd is the textbook triple loop, the oracle for random shapes.
func naiveBwd(p BwdProblem) BwdResult {
	r := BwdResult{Dout: make([]float64, p.M*p.I), GradDe: make([]float64, p.M*2*p.I), Out: make([]float64, p.M*p.I)}
	for m := 0; m < p.M; m++ {
		for i := 0; i < p.I; i++ {
			var s float64
			for k := 0; k < p.K; k++ {
				w := p.WDown[i*p.K+k]
				if p.WDownMNMajor {
					w = p.WDown[k*p.I+i]
				}
				s += p.Dy[m*p.K+k] * w
			}
			r.Dout[m*p.I+i] = s
			left, gate := p.De[m*2*p.I+i], p.De[m*2*p.I+p.I+i]
			sg := 1 / (1 + math.Exp(-gate))
			r.GradDe[m*2*p.I+i] = s * gate * sg
			r.GradDe[m*2*p.I+p.I+i] = s * left * sg * (1 + gate*(1-sg))
			r.Out[m*p.I+i] = left * gate * sg
		}
	}
	return r
}

// RandomBwd returns a random problem whose inputs are exact in dtype.
func randomBwd(seed uint64, M, K, I int, mn bool) BwdProblem {
	g := num.NewRand(seed)
	return BwdProblem{M: M, K: K, I: I, WDownMNMajor: mn,
		Dy:    num.Float64s(g.Normal(tiling.BF16, M*K, 1)),
		WDown: num.Float64s(g.Normal(tiling.BF16, I*K, 1)),
		De:    num.Float64s(g.Normal(tiling.BF16, M*2*I, 2)),
	}
}

func TestBwdRandomAndMNMajorEquivalence(t *testing.T) {
	t.Parallel()
	for _, s := range []struct{ M, K, I int }{{1, 1, 1}, {3, 7, 5}, {129, 72, 200}, {16, 33, 9}} {
		p := randomBwd(uint64(s.M*1000+s.K), s.M, s.K, s.I, false)
		want := naiveBwd(p)
		got := BwdDSwiGLU(p)
		q := p
		q.WDownMNMajor = true
		q.WDown = TransposeRowMajor(p.WDown, s.I, s.K)
		gotMN := BwdDSwiGLU(q)
		// Summation orders differ (unrolled dot vs axpy vs naive loop),
		// so compare in Frobenius norm.
		for _, c := range []struct {
			name      string
			got, want []float64
		}{
			{"dout", got.Dout, want.Dout}, {"grad_de", got.GradDe, want.GradDe}, {"out", got.Out, want.Out},
			{"mn dout", gotMN.Dout, want.Dout}, {"mn grad_de", gotMN.GradDe, want.GradDe},
			{"mn naive", naiveBwd(q).GradDe, want.GradDe},
		} {
			if st := compare64(c.got, c.want); st > 1e-13 {
				t.Errorf("%v %s: rel frobenius %g", s, c.name, st)
			}
		}
	}
}

func compare64(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var d2, w2 float64
	for i := range want {
		d2 += (got[i] - want[i]) * (got[i] - want[i])
		w2 += want[i] * want[i]
	}
	if w2 == 0 {
		return math.Sqrt(d2)
	}
	return math.Sqrt(d2 / w2)
}

func TestBwdValidate(t *testing.T) {
	t.Parallel()
	good := randomBwd(1, 2, 3, 4, false)
	tests := []struct {
		name    string
		edit    func(p *BwdProblem)
		wantErr bool
	}{
		{"ok", func(*BwdProblem) {}, false},
		{"zero M", func(p *BwdProblem) { p.M = 0 }, true},
		{"short dy", func(p *BwdProblem) { p.Dy = p.Dy[1:] }, true},
		{"short w", func(p *BwdProblem) { p.WDown = nil }, true},
		{"short de", func(p *BwdProblem) { p.De = p.De[:p.M*p.I] }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good
			tt.edit(&p)
			err := p.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, wantErr %v", err, tt.wantErr)
			}
			if r := BwdDSwiGLU(p); tt.wantErr && r.GradDe != nil {
				t.Error("invalid problem gave a result")
			}
		})
	}
}

// TestBwdLargeIsFast guards the reference's speed at the verify shape.
func TestBwdLargeIsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("large reference skipped in -short")
	}
	p := randomBwd(9, 1024, 768, 1024, false)
	start := time.Now()
	r := BwdDSwiGLU(p)
	el := time.Since(start)
	t.Logf("M=1024 K=768 I=1024: %v", el)
	if el > 20*time.Second {
		t.Errorf("reference took %v", el)
	}
	// Spot-check a few elements against the naive formula.
	for _, m := range []int{0, 511, 1023} {
		var s float64
		for k := 0; k < p.K; k++ {
			s += p.Dy[m*p.K+k] * p.WDown[7*p.K+k]
		}
		if math.Abs(s-r.Dout[m*p.I+7]) > 1e-9*math.Max(1, math.Abs(s)) {
			t.Errorf("dout[%d,7] = %g, want %g", m, r.Dout[m*p.I+7], s)
		}
	}
}
