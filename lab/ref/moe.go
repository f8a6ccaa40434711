package ref

import "fmt"

// MoEFwdGateUpProblem is one moe_fwd_gateup problem in float64, all
// row-major: X [T,K] sorted by expert; W [E,2I,K], expert e's fwd_gateup
// weight (left rows, then gate rows); Offs [E] the cumulative row ends
// (expert e owns rows Offs[e-1]..Offs[e]-1, Offs[E-1] = T); Score [T],
// each row's router weight, or nil for none (out = Score[t]*h[t,:], de
// unscaled).
type MoEFwdGateUpProblem struct {
	T, K, I, E int
	X, W       []float64
	Offs       []int32
	Score      []float64
}

// Validate checks the sizes, the slices' lengths and that Offs is
// non-decreasing and ends at T.
func (p MoEFwdGateUpProblem) Validate() error {
	if p.T < 0 || p.K <= 0 || p.I <= 0 || p.E <= 0 {
		return fmt.Errorf("ref: moe_fwd_gateup problem T=%d K=%d I=%d E=%d: T must be >= 0, the others positive", p.T, p.K, p.I, p.E)
	}
	if len(p.X) != p.T*p.K || len(p.W) != p.E*2*p.I*p.K || len(p.Offs) != p.E {
		return fmt.Errorf("ref: moe_fwd_gateup problem T=%d K=%d I=%d E=%d: x has %d elements (want %d), W %d (want %d), offs %d (want %d)",
			p.T, p.K, p.I, p.E, len(p.X), p.T*p.K, len(p.W), p.E*2*p.I*p.K, len(p.Offs), p.E)
	}
	if p.Score != nil && len(p.Score) != p.T {
		return fmt.Errorf("ref: moe_fwd_gateup problem T=%d: score has %d elements, want T", p.T, len(p.Score))
	}
	prev := int32(0)
	for e, o := range p.Offs {
		if o < prev && e == 0 {
			return fmt.Errorf("ref: moe_fwd_gateup offs[0]=%d: must be >= 0 (cumulative ends)", o)
		}
		if o < prev {
			return fmt.Errorf("ref: moe_fwd_gateup offs[%d]=%d: must not be below offs[%d]=%d (cumulative ends)", e, o, e-1, prev)
		}
		prev = o
	}
	if int(prev) != p.T {
		return fmt.Errorf("ref: moe_fwd_gateup offs[E-1]=%d: must be T=%d", prev, p.T)
	}
	return nil
}

// MoEFwdGateUp computes out [T,I] expert by expert: the rows of expert e
// get FwdGateUp with W[e]. It returns nil for an invalid problem.
func MoEFwdGateUp(p MoEFwdGateUpProblem) []float64 {
	return MoEFwdGateUpTrain(p).Out
}

// MoEFwdGateUpTrain computes what the training variant (StoreOut) stores,
// expert by expert: De [T,2I] = [left | gate] and Out [T,I], the rows of
// expert e getting FwdGateUp with W[e]. An invalid problem gives an empty
// result (nil slices).
func MoEFwdGateUpTrain(p MoEFwdGateUpProblem) FwdGateUpResult {
	if p.Validate() != nil {
		return FwdGateUpResult{}
	}
	K, I := p.K, p.I
	res := FwdGateUpResult{De: make([]float64, p.T*2*I), Out: make([]float64, p.T*I)}
	row0 := 0
	for e := 0; e < p.E; e++ {
		row1 := int(p.Offs[e])
		if row1 > row0 {
			r := FwdGateUp(FwdGateUpProblem{M: row1 - row0, K: K, I: I,
				X: p.X[row0*K : row1*K], W: p.W[e*2*I*K : (e+1)*2*I*K]})
			copy(res.De[row0*2*I:row1*2*I], r.De)
			copy(res.Out[row0*I:row1*I], r.Out)
		}
		row0 = row1
	}
	scaleRows(res.Out, p.Score, I)
	return res
}

// scaleRows multiplies row t of v (rows of n) by score[t]; a nil score
// leaves v as it is.
func scaleRows(v, score []float64, n int) {
	for t, s := range score {
		for i := range n {
			v[t*n+i] *= s
		}
	}
}
