package num

import (
	"math/rand/v2"

	"github.com/swigen/swigen/tiling"
)

// Rand is a seeded generator of test inputs. Every value it returns is
// already rounded to the requested dtype, so the float64 reference (fed the
// widened float32s) and the GPU (fed the encoded bytes) see identical inputs.
type Rand struct {
	r *rand.Rand
}

// NewRand returns a generator with a fixed, reproducible stream for seed.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))}
}

// Normal returns n samples of N(0, scale^2), each rounded to dtype (an
// unknown dtype leaves them as float32).
func (g *Rand) Normal(dtype tiling.DType, n int, scale float64) []float32 {
	if n < 0 {
		n = 0
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = Round(dtype, float32(g.r.NormFloat64()*scale))
	}
	return out
}

// Uniform returns n samples uniform in [lo, hi), each rounded to dtype.
func (g *Rand) Uniform(dtype tiling.DType, n int, lo, hi float64) []float32 {
	if n < 0 {
		n = 0
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = Round(dtype, float32(lo+(hi-lo)*g.r.Float64()))
	}
	return out
}
