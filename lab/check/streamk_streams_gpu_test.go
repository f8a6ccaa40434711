//go:build gpu

package check

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// TestGPUStreamKTwoStreams launches one stream-K Kernel on two streams at
// once, over and over: each stream has its own workspace, so both outputs
// are bitwise the output of a launch alone (one workspace shared by the
// streams mixes their flags and partial sums).
func TestGPUStreamKTwoStreams(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	cfg, err := tiling.ParseName("gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk")
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := BuildAndLoad(context.Background(), env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	// 8x16 = 128 tiles of 64 k-blocks on up to 132 CTAs: every tile split.
	const M, N, K = 1000, 4096, 4096
	rng := num.NewRand(7)
	dev := newRun(env, cfg.DType)
	defer dev.free()
	ap := dev.upload(rng.Normal(cfg.DType, M*K, 1))
	bp := dev.upload(rng.Normal(cfg.DType, N*K, 1/math.Sqrt(K)))
	c0, c1, c2 := dev.poisoned(M*N), dev.poisoned(M*N), dev.poisoned(M*N)
	if dev.err != nil {
		t.Fatal(dev.err)
	}
	plan := func(c cu.DevicePtr, s *cu.Stream) *launch.Plan {
		p, err := k.Plan(launch.GemmArgs{M: M, N: N, K: K, A: ap, B: bp, C: c, Stream: s})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	dev.exec(plan(c0, nil), time.Minute)
	want := dev.download(c0, M*N)
	if dev.err != nil {
		t.Fatal(dev.err)
	}
	var ps []*launch.Plan
	for range 2 {
		s, err := ctx.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Destroy()
		ps = append(ps, plan([]cu.DevicePtr{c1, c2}[len(ps)], s))
	}
	for range 50 {
		for _, p := range ps {
			if err := p.Launch(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range ps {
		if err := p.Sync(time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []cu.DevicePtr{c1, c2} {
		got := dev.download(c, M*N)
		if dev.err != nil {
			t.Fatal(dev.err)
		}
		if d := firstDiff(want, got); d >= 0 {
			t.Errorf("stream %d: output differs from the lone launch's at element %d", i+1, d/2)
		}
	}
}
