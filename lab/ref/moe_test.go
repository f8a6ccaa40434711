package ref

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMoEFwdGateUpPerExpert checks the grouped reference against the dense
// one row by row: each row of out is FwdGateUp of that row with its
// expert's weight, empty experts included.
func TestMoEFwdGateUpPerExpert(t *testing.T) {
	const K, I, E = 16, 8, 4
	offs := []int32{0, 3, 3, 7} // experts 0 and 2 empty
	T := int(offs[E-1])
	x, w := make([]float64, T*K), make([]float64, E*2*I*K)
	for i := range x {
		x[i] = math.Sin(float64(i))
	}
	for i := range w {
		w[i] = math.Cos(float64(3 * i))
	}
	got := MoEFwdGateUp(MoEFwdGateUpProblem{T: T, K: K, I: I, E: E, X: x, W: w, Offs: offs})
	if len(got) != T*I {
		t.Fatalf("out has %d elements, want %d", len(got), T*I)
	}
	expertOf := []int{1, 1, 1, 3, 3, 3, 3}
	for r := 0; r < T; r++ {
		e := expertOf[r]
		want := FwdGateUp(FwdGateUpProblem{M: 1, K: K, I: I, X: x[r*K : (r+1)*K], W: w[e*2*I*K : (e+1)*2*I*K]}).Out
		for i := 0; i < I; i++ {
			if got[r*I+i] != want[i] {
				t.Fatalf("out[%d,%d] = %v, want %v (expert %d)", r, i, got[r*I+i], want[i], e)
			}
		}
	}
}

// TestMoEFwdGateUpValidate rejects offsets that decrease or miss T.
func TestMoEFwdGateUpValidate(t *testing.T) {
	for _, offs := range [][]int32{{2, 1}, {1, 1}} {
		p := MoEFwdGateUpProblem{T: 2, K: 8, I: 8, E: 2, X: make([]float64, 16), W: make([]float64, 2*16*8), Offs: offs}
		if p.Validate() == nil {
			t.Errorf("offs %v: Validate passed, want an error", offs)
		}
		if MoEFwdGateUp(p) != nil {
			t.Errorf("offs %v: MoEFwdGateUp returned an answer for an invalid problem", offs)
		}
	}
}

// TestMoEFwdGateUpValidateNegativeFirst checks that a negative first offset
// is refused with the rule it breaks, naming offs[0] (not an offs[-1]).
func TestMoEFwdGateUpValidateNegativeFirst(t *testing.T) {
	p := MoEFwdGateUpProblem{T: 2, K: 8, I: 8, E: 2, X: make([]float64, 16), W: make([]float64, 2*16*8), Offs: []int32{-1, 2}}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "offs[0]=-1: must be >= 0") {
		t.Errorf("Validate = %v, want an error naming offs[0]=-1 and the rule", err)
	}
}

// TestMoEFwdGateUpTrain checks the training reference against the dense
// one row by row (de and out, empty experts included), that its out is
// MoEFwdGateUp's, and that an invalid problem gives no answer while T = 0
// gives an empty one.
func TestMoEFwdGateUpTrain(t *testing.T) {
	const K, I, E = 16, 8, 4
	offs := []int32{2, 2, 5, 5} // experts 1 and 3 empty
	T := int(offs[E-1])
	x, w := make([]float64, T*K), make([]float64, E*2*I*K)
	for i := range x {
		x[i] = math.Sin(float64(2 * i))
	}
	for i := range w {
		w[i] = math.Cos(float64(5 * i))
	}
	p := MoEFwdGateUpProblem{T: T, K: K, I: I, E: E, X: x, W: w, Offs: offs}
	got := MoEFwdGateUpTrain(p)
	if len(got.De) != T*2*I || len(got.Out) != T*I {
		t.Fatalf("de has %d elements (want %d), out %d (want %d)", len(got.De), T*2*I, len(got.Out), T*I)
	}
	var want FwdGateUpResult
	for r, e := range []int{0, 0, 2, 2, 2} {
		d := FwdGateUp(FwdGateUpProblem{M: 1, K: K, I: I, X: x[r*K : (r+1)*K], W: w[e*2*I*K : (e+1)*2*I*K]})
		want.De, want.Out = append(want.De, d.De...), append(want.Out, d.Out...)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("MoEFwdGateUpTrain (-per row +grouped):\n%s", d)
	}
	if d := cmp.Diff(got.Out, MoEFwdGateUp(p)); d != "" {
		t.Errorf("MoEFwdGateUp differs from MoEFwdGateUpTrain's out:\n%s", d)
	}
	bad := p
	bad.Offs = []int32{2, 1, 5, 5}
	if r := MoEFwdGateUpTrain(bad); r.De != nil || r.Out != nil {
		t.Errorf("offs %v: an answer for an invalid problem", bad.Offs)
	}
	empty := MoEFwdGateUpTrain(MoEFwdGateUpProblem{K: K, I: I, E: 2, W: make([]float64, 2*2*I*K), Offs: []int32{0, 0}})
	if empty.De == nil || empty.Out == nil || len(empty.De)+len(empty.Out) != 0 {
		t.Errorf("T=0: de %v, out %v, want empty (not nil)", empty.De, empty.Out)
	}
}
