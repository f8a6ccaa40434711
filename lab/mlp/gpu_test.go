//go:build gpu

package mlp

import (
	"context"
	"math"
	"testing"

	"github.com/swigen/swigen/gen/builder"
	"github.com/swigen/swigen/lab/baseline"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/lab/ref"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

func gpuEnv(t *testing.T) (*Env, *builder.Builder) {
	t.Helper()
	ctx, tc := gputest.Open(t)
	blas, err := baseline.OpenCuBLAS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = blas.Close() })
	dsw, err := baseline.NewElementwise(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dsw.Close() })
	sw, err := NewSwiGLU(context.Background(), ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sw.Close() })
	return &Env{Ctx: ctx, Dev: ctx.Device(), BLAS: blas, DSwiGLU: dsw, SwiGLU: sw}, tc
}

// TestGPUSwiGLU checks the forward elementwise kernel (both paths) against
// the float64 epilogue, gates at ±20 included.
func TestGPUSwiGLU(t *testing.T) {
	env, _ := gpuEnv(t)
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for _, sh := range [][2]int{{7, 64}, {33, 60}, {1, 8}} {
			M, I := sh[0], sh[1]
			rng := num.NewRand(uint64(M*I) + 5)
			de := rng.Normal(dt, M*2*I, 2)
			de[I] = 20
			if M*2*I > I+1 {
				de[I+1] = -20
			}
			dp, err := env.Ctx.MemAlloc(uint64(len(de) * 2))
			if err != nil {
				t.Fatal(err)
			}
			op, err := env.Ctx.MemAlloc(uint64(M * I * 2))
			if err != nil {
				t.Fatal(err)
			}
			if err := env.Ctx.MemcpyHtoD(dp, num.Encode(dt, de)); err != nil {
				t.Fatal(err)
			}
			if err := env.Ctx.MemsetD16(op, num.Poison(dt), uint64(M*I)); err != nil {
				t.Fatal(err)
			}
			if err := env.SwiGLU.Run(dt, M, I, dp, op, nil); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, M*I*2)
			if err := env.Ctx.MemcpyDtoH(got, op); err != nil {
				t.Fatal(err)
			}
			want := make([]float64, M*I)
			for m := 0; m < M; m++ {
				for i := 0; i < I; i++ {
					_, _, want[m*I+i] = ref.DSwiGLU(0, float64(de[m*2*I+i]), float64(de[m*2*I+I+i]))
				}
			}
			if st := num.CompareRaw(dt, got, want); !st.OK(5e-3) {
				t.Errorf("%s M=%d I=%d: %s", dt, M, I, st)
			}
			_ = env.Ctx.MemFree(dp)
			_ = env.Ctx.MemFree(op)
		}
	}
}

// TestGPUCheck runs the whole-step check, all-baseline and with swigen's
// kernels, on ragged shapes, out saved and recomputed.
func TestGPUCheck(t *testing.T) {
	env, tc := gpuEnv(t)
	dev := env.Dev
	for _, rec := range []bool{false, true} {
		sw := NewSwigen(context.Background(), &check.Env{Ctx: env.Ctx, Dev: dev, Builder: tc}, tiling.ArchSM90a, tiling.BF16, rec)
		for _, sh := range []tiling.Shape{CheckShape, {M: 1, K: 8, I: 8}, {M: 300, K: 64, I: 136}} {
			res, err := Check(env, sw, sh, Options{RecomputeOut: rec, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				t.Logf("recompute=%v %s %s: worst rel err %.3g, segments %v", rec, sh, r.Mode, r.WorstRelErr(), r.Used)
				if !r.Pass || math.IsInf(r.WorstRelErr(), 0) {
					for _, o := range r.Outputs {
						t.Errorf("recompute=%v %s %s %s: %s", rec, sh, r.Mode, o.Name, o.Stats)
					}
				}
			}
		}
		_ = sw.Close()
	}
}
