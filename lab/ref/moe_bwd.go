package ref

import "fmt"

// MoEBwdProblem is one moe_bwd_dswiglu problem in float64, all row-major:
// Dy [T,K] and De [T,2I] ([left | gate]) sorted by expert; WDown [E,K,I],
// expert e's nn.Linear(I,K).weight; Offs [E] the cumulative row ends
// (expert e owns rows Offs[e-1]..Offs[e]-1, Offs[E-1] = T); Score [T],
// each row's router weight s, or nil for none.
type MoEBwdProblem struct {
	T, K, I, E    int
	Dy, WDown, De []float64
	Offs          []int32
	Score         []float64
}

// MoEBwdResult is the float64 answer of a MoEBwdProblem: GradDe [T,2I] =
// [dleft | dgate] and Out [T,I] = left*silu(gate). With a score, the
// dSwiGLU takes s*dout (GradDe scaled by s), Out is s*h and DScore [T] is
// the score's gradient, sum_i h[t,i]*dout[t,i] (h = left*silu(gate),
// unscaled); DScore is nil without a score.
type MoEBwdResult struct {
	GradDe, Out, DScore []float64
}

// Validate checks the sizes, the slices' lengths and that Offs is
// non-decreasing, starts at or above 0 and ends at T.
func (p MoEBwdProblem) Validate() error {
	if p.T < 0 || p.K <= 0 || p.I <= 0 || p.E <= 0 {
		return fmt.Errorf("ref: moe_bwd_dswiglu problem T=%d K=%d I=%d E=%d: T must be >= 0, the others positive", p.T, p.K, p.I, p.E)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"dy", len(p.Dy), p.T * p.K},
		{"w_down", len(p.WDown), p.E * p.K * p.I},
		{"de", len(p.De), p.T * 2 * p.I},
		{"offs", len(p.Offs), p.E},
	} {
		if c.got != c.want {
			return fmt.Errorf("ref: moe_bwd_dswiglu problem T=%d K=%d I=%d E=%d: %s has %d elements, want %d", p.T, p.K, p.I, p.E, c.name, c.got, c.want)
		}
	}
	if p.Score != nil && len(p.Score) != p.T {
		return fmt.Errorf("ref: moe_bwd_dswiglu problem T=%d: score has %d elements, want T", p.T, len(p.Score))
	}
	prev := int32(0)
	for e, o := range p.Offs {
		switch {
		case e == 0 && o < 0:
			return fmt.Errorf("ref: moe_bwd_dswiglu offs[0]=%d: must be >= 0 (cumulative ends)", o)
		case o < prev:
			return fmt.Errorf("ref: moe_bwd_dswiglu offs[%d]=%d: must not be below offs[%d]=%d (cumulative ends)", e, o, e-1, prev)
		}
		prev = o
	}
	if int(prev) != p.T {
		return fmt.Errorf("ref: moe_bwd_dswiglu offs[E-1]=%d: must be T=%d", prev, p.T)
	}
	return nil
}

// MoEBwdDSwiGLU computes grad_de and out expert by expert: the rows of
// expert e get BwdDSwiGLU with W_down[e] as the MN-major [K,I] weight
// (dout = dy @ W_down[e]). An invalid problem gives an empty result, which
// every comparison then fails on length.
func MoEBwdDSwiGLU(p MoEBwdProblem) MoEBwdResult {
	if p.Validate() != nil {
		return MoEBwdResult{}
	}
	K, I := p.K, p.I
	r := MoEBwdResult{GradDe: make([]float64, p.T*2*I), Out: make([]float64, p.T*I)}
	if p.Score != nil {
		r.DScore = make([]float64, p.T)
	}
	row0 := 0
	for e := 0; e < p.E; e++ {
		row1 := int(p.Offs[e])
		if row1 > row0 {
			b := BwdDSwiGLU(BwdProblem{M: row1 - row0, K: K, I: I, WDownMNMajor: true,
				Dy: p.Dy[row0*K : row1*K], WDown: p.WDown[e*K*I : (e+1)*K*I], De: p.De[row0*2*I : row1*2*I]})
			copy(r.GradDe[row0*2*I:row1*2*I], b.GradDe)
			copy(r.Out[row0*I:row1*I], b.Out)
			if p.Score != nil {
				scoreRows(r, b, p.Score, row0, row1, I)
			}
		}
		row0 = row1
	}
	return r
}

// scoreRows applies the score to rows row0..row1-1 of r, whose unscaled
// answer for those rows is b: dSwiGLU is linear in dout, so grad_de and
// out scale by s; dscore[t] = sum_i h[t,i]*dout[t,i] with b.Out = h.
func scoreRows(r MoEBwdResult, b BwdResult, score []float64, row0, row1, I int) {
	for t := row0; t < row1; t++ {
		s, m := score[t], t-row0
		for i := range 2 * I {
			r.GradDe[t*2*I+i] *= s
		}
		sum := 0.0
		for i := range I {
			sum += b.Out[m*I+i] * b.Dout[m*I+i]
			r.Out[t*I+i] *= s
		}
		r.DScore[t] = sum
	}
}
