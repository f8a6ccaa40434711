package ref

import (
	"math"
	"strings"
	"testing"
)

// scoreProblemData is the small routed problem the score tests share:
// experts 0 and 2 empty, a score per row with a zero and a negative one.
func scoreProblemData() (offs []int32, x, w, dy, wd, de, score []float64) {
	const K, I, E = 12, 8, 4
	offs = []int32{0, 3, 3, 7}
	T := int(offs[E-1])
	x, w = make([]float64, T*K), make([]float64, E*2*I*K)
	dy, wd, de = make([]float64, T*K), make([]float64, E*K*I), make([]float64, T*2*I)
	for i := range x {
		x[i], dy[i] = math.Sin(float64(i)), math.Cos(float64(7*i))
	}
	for i := range w {
		w[i] = math.Cos(float64(3 * i))
	}
	for i := range wd {
		wd[i] = math.Sin(float64(2*i) + 0.5)
	}
	for i := range de {
		de[i] = math.Sin(float64(5*i) + 1)
	}
	score = []float64{0.5, 0, 1.25, -0.75, 2, 0.125, 1}
	return offs, x, w, dy, wd, de, score
}

// TestMoEScore checks the score references against their definitions row
// by row: the forward's out is s*h with de unscaled; the backward's
// grad_de is dSwiGLU(s*dout), its out s*h and dscore sum_i h*dout, with
// dout from its definition.
func TestMoEScore(t *testing.T) {
	const K, I, E = 12, 8, 4
	offs, x, w, dy, wd, de, score := scoreProblemData()
	T := int(offs[E-1])
	plain := MoEFwdGateUpTrain(MoEFwdGateUpProblem{T: T, K: K, I: I, E: E, X: x, W: w, Offs: offs})
	got := MoEFwdGateUpTrain(MoEFwdGateUpProblem{T: T, K: K, I: I, E: E, X: x, W: w, Offs: offs, Score: score})
	for r := range T {
		for i := range I {
			if want := score[r] * plain.Out[r*I+i]; got.Out[r*I+i] != want {
				t.Fatalf("fwd out[%d,%d] = %v, want %v", r, i, got.Out[r*I+i], want)
			}
		}
	}
	for i := range plain.De {
		if got.De[i] != plain.De[i] {
			t.Fatalf("fwd de[%d] = %v, want the unscaled %v", i, got.De[i], plain.De[i])
		}
	}
	b := MoEBwdDSwiGLU(MoEBwdProblem{T: T, K: K, I: I, E: E, Dy: dy, WDown: wd, De: de, Offs: offs, Score: score})
	if len(b.DScore) != T {
		t.Fatalf("dscore has %d elements, want %d", len(b.DScore), T)
	}
	expertOf := []int{1, 1, 1, 3, 3, 3, 3}
	near := func(what string, r, i int, got, want float64) {
		if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("%s[%d,%d] = %v, want %v", what, r, i, got, want)
		}
	}
	for r := range T {
		e, s, sum := expertOf[r], score[r], 0.0
		for i := range I {
			dout := 0.0
			for k := range K {
				dout += dy[r*K+k] * wd[(e*K+k)*I+i]
			}
			dl, dg, h := DSwiGLU(s*dout, de[r*2*I+i], de[r*2*I+I+i])
			near("dleft", r, i, b.GradDe[r*2*I+i], dl)
			near("dgate", r, i, b.GradDe[r*2*I+I+i], dg)
			near("out", r, i, b.Out[r*I+i], s*h)
			sum += h * dout
		}
		near("dscore", r, 0, b.DScore[r], sum)
	}
	if nb := MoEBwdDSwiGLU(MoEBwdProblem{T: T, K: K, I: I, E: E, Dy: dy, WDown: wd, De: de, Offs: offs}); nb.DScore != nil {
		t.Errorf("without a score: dscore %v, want nil", nb.DScore)
	}
}

// TestMoEScoreValidate refuses a score whose length is not T, naming it.
func TestMoEScoreValidate(t *testing.T) {
	const K, I, E = 12, 8, 4
	offs, x, w, dy, wd, de, score := scoreProblemData()
	T := int(offs[E-1])
	f := MoEFwdGateUpProblem{T: T, K: K, I: I, E: E, X: x, W: w, Offs: offs, Score: score[:3]}
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "score has 3 elements, want T") {
		t.Errorf("fwd Validate = %v, want the score's length named", err)
	}
	b := MoEBwdProblem{T: T, K: K, I: I, E: E, Dy: dy, WDown: wd, De: de, Offs: offs, Score: score[:3]}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "score has 3 elements, want T") {
		t.Errorf("bwd Validate = %v, want the score's length named", err)
	}
}
