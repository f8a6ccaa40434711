//go:build gpu

package check

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// skState is a stream-K workspace's flags and header (tiling.
// StreamKWorkspace) on the device.
type skState struct {
	r          *run
	ws         cu.DevicePtr
	grid, slot int // slot: the partial slots' offset
	scratch    int64
}

func (s skState) read() (flags []uint32, epoch, done uint32) {
	raw := make([]byte, s.grid*tiling.StreamKFlagBytes+tiling.StreamKHeaderBytes)
	if s.r.err == nil {
		s.r.err = s.r.env.Ctx.MemcpyDtoH(raw, s.ws)
	}
	for i := 0; i+4 <= len(raw); i += 4 {
		flags = append(flags, binary.LittleEndian.Uint32(raw[i:]))
	}
	n := len(flags)
	return flags[:n-2], flags[n-2], flags[n-1]
}

// set sets every flag to flag and the header's epoch to epoch.
func (s skState) set(flag, epoch uint32) {
	raw := make([]byte, s.grid*tiling.StreamKFlagBytes+tiling.StreamKHeaderBytes)
	for i := 0; i < len(raw)-8; i += 4 {
		binary.LittleEndian.PutUint32(raw[i:], flag)
	}
	binary.LittleEndian.PutUint32(raw[len(raw)-8:], epoch)
	if s.r.err == nil {
		s.r.err = s.r.env.Ctx.MemcpyHtoD(s.ws, raw)
	}
}

// poison fills the partial slots with NaN: an owner that passed a flag
// before its launch's partial is stored sums NaN (a partial of an earlier
// launch of the same inputs would be equal, and go unseen).
func (s skState) poison() {
	if s.r.err == nil {
		s.r.err = s.r.env.Ctx.MemsetD8(s.ws+cu.DevicePtr(s.slot), 0xff, uint64(s.scratch-int64(s.slot)))
	}
}

// TestGPUStreamKEpochs launches one stream-K plan over and over on one
// workspace: each launch's epoch is the last one's plus one (the kernel
// keeps it in the workspace's header), flags left by an earlier launch
// (what a partial late past its owner's timeout leaves, or the reset
// scheme's 1) never pass a later wait, and at the last epoch the kernel
// zeroes the flags and the header and the epochs start again at 1. Every
// launch runs on NaN-filled slots and must give the first launch's output
// bit for bit.
func TestGPUStreamKEpochs(t *testing.T) {
	ctx, tc := gputest.Open(t)
	env := &Env{Ctx: ctx, Dev: ctx.Device(), Builder: tc}
	for _, name := range []string{"gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_sk", "gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk"} {
		t.Run(name, func(t *testing.T) { skEpochs(t, env, name, 0) })
		// A grid that is a multiple of 16 (a MIG slice's SM count), where
		// the kernel once put the partial slots over the header; 48 CTAs
		// leave a split tail on both tiles (256 and 128 tiles).
		t.Run(name+"/grid48", func(t *testing.T) { skEpochs(t, env, name, 48) })
	}
}

// skEpochs runs the epoch steps on name's kernel, its grid sized for sms
// SMs (0: the device's).
func skEpochs(t *testing.T, env *Env, name string, sms int) {
	cfg, err := tiling.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := BuildAndLoad(context.Background(), env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if sms > 0 {
		if err := k.LimitSMs(sms); err != nil {
			t.Skip(err)
		}
	}
	// 1000x4096 on 128-wide tiles: more tiles than SMs, the tail split.
	const M, N, K = 1000, 4096, 4096
	rng := num.NewRand(9)
	dev := newRun(env, cfg.DType)
	defer dev.free()
	ap := dev.upload(rng.Normal(cfg.DType, M*K, 1))
	bp := dev.upload(rng.Normal(cfg.DType, N*K, 1/math.Sqrt(K)))
	c := dev.poisoned(M * N)
	if dev.err != nil {
		t.Fatal(dev.err)
	}
	p, err := k.Plan(launch.GemmArgs{M: M, N: N, K: K, A: ap, B: bp, C: c})
	if err != nil {
		t.Fatal(err)
	}
	ws, size := p.Workspace()
	flagBytes, _, _ := tiling.StreamKWorkspace(p.Grid(), cfg.TileM, cfg.TileN)
	st := skState{r: dev, ws: ws, grid: p.Grid(), slot: flagBytes, scratch: size.Bytes}
	dev.exec(p, time.Minute)
	want := dev.download(c, M*N)
	steps := []struct {
		name        string
		set         bool   // set the flags and the header before the launch
		flag, epoch uint32 // what to set them to
		next        uint32 // the header's epoch after the launch
		zeroFlags   bool
	}{
		{"again: flags left at the last epoch", false, 0, 0, 2, false},
		{"flags left at 1 (the reset scheme's)", true, 1, 2, 3, false},
		{"the last epoch: flags and header zeroed", true, 0xfffffffe, 0xfffffffe, 0, true},
		{"after the wrap", false, 0, 0, 1, false},
	}
	if _, e, d := st.read(); dev.err == nil && (e != 1 || d != 0) {
		t.Fatalf("after the first launch: header epoch %d, done %d; want 1, 0", e, d)
	}
	for _, s := range steps {
		if s.set {
			st.set(s.flag, s.epoch)
		}
		st.poison()
		if dev.err = env.Ctx.MemsetD16(c, num.Poison(cfg.DType), M*N); dev.err != nil {
			t.Fatal(dev.err)
		}
		dev.exec(p, time.Minute)
		got := dev.download(c, M*N)
		flags, e, d := st.read()
		if dev.err != nil {
			t.Fatalf("%s: %v", s.name, dev.err)
		}
		if i := firstDiff(want, got); i >= 0 {
			t.Errorf("%s: output differs from the first launch's at element %d", s.name, i/2)
		}
		if e != s.next || d != 0 {
			t.Errorf("%s: header epoch %d, done %d; want %d, 0", s.name, e, d, s.next)
		}
		for i, f := range flags {
			if s.zeroFlags && f != 0 {
				t.Errorf("%s: flag %d is %#x, want 0", s.name, i, f)
				break
			}
		}
	}
}
