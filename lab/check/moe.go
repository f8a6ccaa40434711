package check

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// Routing is one grouped problem's token counts per expert (sorted by
// expert: the kernel's offs are their running sums), with the model sizes.
type Routing struct {
	Name   string
	K, I   int
	Counts []int
}

// Offs is r's cumulative row ends, the kernel's offs.
func (r Routing) Offs() []int32 {
	offs := make([]int32, len(r.Counts))
	s := 0
	for e, c := range r.Counts {
		s += c
		offs[e] = int32(s)
	}
	return offs
}

// T is r's token count.
func (r Routing) T() int {
	t := 0
	for _, c := range r.Counts {
		t += c
	}
	return t
}

// UniformCounts routes t tokens to e experts uniformly at random.
func UniformCounts(seed uint64, t, e int) []int {
	g := rand.New(rand.NewPCG(seed, 1))
	c := make([]int, e)
	for range t {
		c[g.IntN(e)]++
	}
	return c
}

// ZipfCounts routes t tokens to e experts with P(expert j) ~ 1/(j+1)^s,
// the skew of a badly balanced router.
func ZipfCounts(seed uint64, t, e int, s float64) []int {
	g := rand.New(rand.NewPCG(seed, 2))
	cdf := make([]float64, e)
	sum := 0.0
	for j := range e {
		sum += 1 / math.Pow(float64(j+1), s)
		cdf[j] = sum
	}
	c := make([]int, e)
	for range t {
		u := g.Float64() * sum
		j := 0
		for j < e-1 && cdf[j] < u {
			j++
		}
		c[j]++
	}
	return c
}

// MoERoutings are the routings every grouped kernel is verified on, for a
// tile of tileM rows: empty experts, one-token experts, one expert holding
// every token, expert sizes tileM-1, tileM, tileM+1 (and twice), a single
// expert, uniform and Zipf; K and I ragged against the tile.
func MoERoutings(tileM int) []Routing {
	return []Routing{
		{"empty experts", 264, 200, []int{0, 37, 0, 0, 2 * tileM, 5, 0, 90}},
		{"one-token experts", 72, 136, []int{1, 1, 1, 1, 1, 1}},
		{"one expert holds all", 136, 200, []int{0, 0, 0, 333, 0, 0, 0, 0}},
		{"tileM-1, tileM, tileM+1", 200, 136, []int{tileM - 1, tileM, tileM + 1, 2*tileM - 1, 2 * tileM, 2*tileM + 1}},
		{"single expert", 1032, 264, []int{300}},
		{"uniform 16", 256, 192, UniformCounts(7, 1024, 16)},
		{"zipf 16", 256, 192, ZipfCounts(7, 1000, 16, 1.2)},
		{"last expert empty", 64, 64, []int{10, 130, 0}},
	}
}

// eachRouting runs verify on each routing in order, with Options'
// defaults and one random stream seeded by o.Seed for all of them.
func eachRouting(env *Env, k *launch.Kernel, routings []Routing, o Options,
	verify func(*Env, *launch.Kernel, Routing, *num.Rand, Options) ShapeResult) []ShapeResult {
	o = o.defaults()
	rng := num.NewRand(o.Seed)
	var res []ShapeResult
	for _, r := range routings {
		res = append(res, verify(env, k, r, rng, o))
	}
	return res
}

// VerifyMoEFwdGateUp runs a loaded moe_fwd_gateup kernel on each routing
// and compares out and, with StoreOut (training), both halves of de with
// the float64 per-expert reference (ref.MoEFwdGateUpTrain); out and de are
// poisoned before each launch, so a row the kernel leaves or a row of
// another expert it overwrites shows up, and with Options.Repeat the
// launch repeats and must give the same bits in every output.
func VerifyMoEFwdGateUp(env *Env, k *launch.Kernel, routings []Routing, o Options) []ShapeResult {
	return eachRouting(env, k, routings, o, verifyMoEFwdGateUp)
}

func verifyMoEFwdGateUp(env *Env, k *launch.Kernel, rt Routing, rng *num.Rand, o Options) ShapeResult {
	dt, train := k.Man.Config.DType, k.Man.Config.StoreOut
	T, K, I, E := rt.T(), rt.K, rt.I, len(rt.Counts)
	r := ShapeResult{Shape: tiling.Shape{M: T, K: K, I: I}, Ref: refCPU}
	fail := func(err error) ShapeResult { r.Err = fmt.Errorf("%s (E=%d): %w", rt.Name, E, err); return r }
	args := launch.MoEFwdGateUpArgs{T: T, K: K, I: I, E: E}
	if err := launch.CheckShape(k.Man.Config, args); err != nil {
		return fail(err)
	}
	x := rng.Normal(dt, T*K, 1)
	w := rng.Normal(dt, E*2*I*K, 2/math.Sqrt(float64(K)))
	offs := rt.Offs()
	dev := newRun(env, dt)
	defer dev.free()
	args.X, args.W = dev.upload(x), dev.upload(w)
	args.Offs = dev.uploadI32(offs)
	args.Out = dev.poisoned(T * I)
	if train {
		args.De = dev.poisoned(T * 2 * I)
	}
	var score []float64
	if k.Man.Config.Score {
		args.Score, score = dev.routerScore(rng, T)
	}
	if dev.err != nil {
		return fail(dev.err)
	}
	plan, err := k.Plan(args)
	if err != nil {
		return fail(err)
	}
	dev.exec(plan, o.Timeout)
	outs := []repeated{{"out", args.Out, dev.download(args.Out, T*I)}}
	if train {
		outs = append(outs, repeated{"de", args.De, dev.download(args.De, T*2*I)})
	}
	if dev.err != nil {
		return fail(dev.err)
	}
	if err := dev.sameOnRepeatAll(plan, o, outs); err != nil {
		return fail(err)
	}
	want := ref.MoEFwdGateUpTrain(ref.MoEFwdGateUpProblem{T: T, K: K, I: I, E: E, X: num.Float64s(x), W: num.Float64s(w), Offs: offs, Score: score})
	if want.Out == nil {
		return fail(fmt.Errorf("the reference refused the problem"))
	}
	r.Outputs = []OutputResult{{Name: "out", Stats: expect{f64: want.Out}.compare(dt, outs[0].first)}}
	if train {
		left, gate := splitHalves(outs[1].first, T)
		wl, wg := expect{f64: want.De}.halves(T, I)
		r.Outputs = append(r.Outputs,
			OutputResult{Name: "left", Stats: wl.compare(dt, left)},
			OutputResult{Name: "gate", Stats: wg.compare(dt, gate)})
	}
	return finish(r, o.tol(dt))
}

// repeated is one output checked on repeat: its name, its buffer and the
// first launch's bytes of it.
type repeated struct {
	name  string
	p     cu.DevicePtr
	first []byte
}

// sameOnRepeatAll is sameOnRepeat over several outputs: before each of
// the o.Repeat-1 more launches every output is poisoned again, and after
// it each must equal its first launch's bytes.
func (r *run) sameOnRepeatAll(plan launchWaiter, o Options, outs []repeated) error {
	for i := 2; i <= o.Repeat && r.err == nil; i++ {
		for _, out := range outs {
			if r.err == nil {
				r.err = r.env.Ctx.MemsetD16(out.p, num.Poison(r.dt), uint64(len(out.first)/r.dt.Size()))
			}
		}
		r.exec(plan, o.Timeout)
		for _, out := range outs {
			again := r.download(out.p, len(out.first)/r.dt.Size())
			if r.err != nil {
				break
			}
			if d := firstDiff(out.first, again); d >= 0 {
				return fmt.Errorf("not deterministic: launch %d's %s differs from launch 1's at element %d (%#04x%02x, then %#04x%02x)",
					i, out.name, d/2, out.first[d|1], out.first[d&^1], again[d|1], again[d&^1])
			}
		}
	}
	return r.err
}

// routerScore uploads a router score per row for a config with Score:
// fp32 uniform in [0.05, 1.05) (a router's weights, one a little above 1),
// returned as float64 for the reference.
func (r *run) routerScore(rng *num.Rand, t int) (cu.DevicePtr, []float64) {
	s := rng.Uniform("", t, 0.05, 1.05) // no dtype: kept as float32
	if r.err != nil {
		return 0, nil
	}
	raw := make([]byte, 4*len(s))
	for i, x := range s {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	p, err := r.b.Alloc(len(raw))
	if err == nil {
		err = r.env.Ctx.MemcpyHtoD(p, raw)
	}
	r.err = err
	return p, num.Float64s(s)
}

// uploadI32 copies v into a new device buffer as little-endian int32s.
func (r *run) uploadI32(v []int32) (p cu.DevicePtr) {
	if r.err != nil {
		return 0
	}
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(x))
	}
	p, r.err = r.b.Alloc(len(raw))
	if r.err == nil {
		r.err = r.env.Ctx.MemcpyHtoD(p, raw)
	}
	return p
}
