package bench

import (
	"fmt"

	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// GemmReport is the result of BenchGemm: swigen's gemm and cuBLAS on the
// same inputs, in the same run.
type GemmReport struct {
	M, N, K int
	Config  string
	Ceil    Ceilings
	FloorUS float64
	Rows    []Row // swigen, cuBLAS
	Ratio   float64
	RelErr  float64 // swigen's C vs cuBLAS's C
	Sets    int
	Grid    int
}

// cublasTranspose maps a gemm config's operand majors onto
// baseline.CuBLAS.GemmRowMajorAB's flags: an MN-major A is stored [K,M]
// (transA); a K-major B is stored [N,K] (transB).
func cublasTranspose(cfg tiling.Config) (transA, transB bool) {
	return cfg.MajorA == tiling.MNMajor, cfg.MajorB == tiling.KMajor
}

// BenchGemm times a loaded gemm kernel against cuBLAS at M x N x K with the
// same operand layouts, inputs rotated over enough sets to keep L2 cold, and
// compares the two outputs.
func BenchGemm(env *Env, k *launch.Kernel, M, N, K int, ceil Ceilings, o Options) (*GemmReport, error) {
	o.defaults()
	cfg := k.Man.Config
	if cfg.Kernel != tiling.PlainGEMM() {
		return nil, fmt.Errorf("bench: gemm: %s is a %s kernel", k.Man.Name, cfg.Kernel)
	}
	if err := launch.CheckShape(cfg, launch.GemmArgs{M: M, N: N, K: K}); err != nil {
		return nil, err
	}
	dt := cfg.DType
	flops, minBytes := perfmodel.GemmCost(M, N, K)
	el := dt.Size()
	setBytes := int(minBytes) + el*M*N // + cuBLAS's own C
	sets, err := RotatedSets(env.Dev, setBytes, 16)
	if err != nil {
		return nil, err
	}

	b := env.Ctx.NewBuffers()
	defer b.Free()
	fl, err := NewFiller(env.Ctx, b, dt, o.Seed, 1)
	if err != nil {
		return nil, err
	}
	type set struct{ a, b, c, cb cu.DevicePtr }
	ss := make([]set, sets)
	for i := range ss {
		x := &ss[i]
		if err := AllocBufs(env.Ctx, b, fl, dt, []Buf{
			{&x.a, M * K * el, true}, {&x.b, N * K * el, true}, {&x.c, M * N * el, false}, {&x.cb, M * N * el, false},
		}); err != nil {
			return nil, err
		}
	}
	plans := make([]*launch.Plan, sets)
	for i, x := range ss {
		if plans[i], err = k.Plan(launch.GemmArgs{M: M, N: N, K: K, A: x.a, B: x.b, C: x.c}); err != nil {
			return nil, err
		}
	}
	ta, tb := cublasTranspose(cfg)
	sw := func(rep int) error { return plans[rep%sets].Launch() }
	cb := func(rep int) error {
		x := ss[rep%sets]
		return env.Base.BLAS.GemmRowMajorAB(dt, ta, tb, M, N, K, x.a, x.b, x.cb, nil)
	}
	name := k.Man.Name
	if err := Warm(env.Ctx, o.Warmup, o.Timeout, name, sw); err != nil {
		return nil, err
	}
	if err := Warm(env.Ctx, o.Warmup, o.Timeout, "cuBLAS", cb); err != nil {
		return nil, err
	}
	var ts, tc []float64
	const rounds = 4
	per := (o.Reps + rounds - 1) / rounds
	for r := 0; r < rounds; r++ {
		us, err := TimeEach(env.Ctx, per, o.Timeout, name, sw)
		if err != nil {
			return nil, err
		}
		ts = append(ts, us...)
		if us, err = TimeEach(env.Ctx, per, o.Timeout, "cuBLAS", cb); err != nil {
			return nil, err
		}
		tc = append(tc, us...)
	}
	rep := &GemmReport{M: M, N: N, K: K, Config: name, Ceil: ceil, Sets: sets, Grid: plans[0].Grid()}
	rep.FloorUS = ceil.FloorUS(flops, minBytes)
	row := func(n string, us []float64) Row {
		st := Quantiles(us)
		return Row{Name: n, FLOPs: flops, Bytes: minBytes, T: st,
			TFLOPs: perfmodel.TFLOPs(flops, st.Median), GBs: perfmodel.GBs(minBytes, st.Median),
			PctFloor: perfmodel.PctOfFloor(rep.FloorUS, st.Median)}
	}
	rep.Rows = []Row{row("swigen "+name, ts), row("cuBLAS", tc)}
	rep.Ratio = rep.Rows[1].T.Median / rep.Rows[0].T.Median

	// Same inputs, both paths: swigen's C against cuBLAS's.
	st, err := CompareOutputs(env.Ctx, env.Cmp, dt, ss[0].c, ss[0].cb, M*N, o.Timeout)
	if err != nil {
		return nil, err
	}
	rep.RelErr = st.RelFrobenius
	if !st.OK(1e-2) {
		return rep, fmt.Errorf("bench: gemm: %s differs from cuBLAS on the same inputs: %s", name, st)
	}
	return rep, nil
}
