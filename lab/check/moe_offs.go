package check

import (
	"fmt"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/launch"
)

// BadOffs is an offs array outside the contract (decreasing, negative or
// past T) that the grouped scheduler clamps (sw_gr_tile: each end into
// [the previous end, T]) and ends at or past T, so its clamped offs cover
// every row and the kernel's outputs must equal, bit for bit, a launch
// with the clamped offs.
type BadOffs struct {
	Name    string
	T, K, I int
	Raw     []int32
}

// ClampOffs is how the grouped scheduler reads raw over T rows: expert
// e's end clamped into [expert e-1's clamped end (0 for e = 0), T].
func ClampOffs(raw []int32, t int) []int32 {
	out := make([]int32, len(raw))
	prev := int32(0)
	for e, end := range raw {
		end = min(max(end, prev), int32(t))
		out[e], prev = end, end
	}
	return out
}

// MoEBadOffs are the bad offs cases for a tile of tileM rows: a
// decreasing end, a negative first end, a last end past T and an end far
// past T before the last expert.
func MoEBadOffs(tileM int) []BadOffs {
	t := 3*tileM + 17
	return []BadOffs{
		{"decreasing", t, 136, 200, []int32{int32(tileM + 3), 5, int32(2 * tileM), int32(t)}},
		{"negative first", t, 136, 200, []int32{-7, int32(tileM), int32(t)}},
		{"last past T", t, 200, 136, []int32{int32(tileM - 1), int32(2*tileM + 1), int32(t + 100)}},
		{"far past T early", t, 72, 64, []int32{int32(tileM), 1 << 30, int32(t), 0}},
	}
}

// eachBadOffs runs verify on each case in order with one random stream
// seeded by seed, an error naming its case.
func eachBadOffs(env *Env, k *launch.Kernel, cases []BadOffs, seed uint64,
	verify func(*Env, *launch.Kernel, BadOffs, *num.Rand) error) []error {
	rng := num.NewRand(seed)
	var errs []error
	for _, c := range cases {
		err := verify(env, k, c, rng)
		if err != nil {
			err = fmt.Errorf("%s (offs %v, T=%d): %w", c.Name, c.Raw, c.T, err)
		}
		errs = append(errs, err)
	}
	return errs
}

// VerifyMoEFwdBadOffs launches a loaded moe_fwd_gateup kernel on each
// case's raw offs and on its clamped offs (same x and W, outputs poisoned
// before each) and reports, per case, the first output that differs (nil
// where every output is the same bits).
func VerifyMoEFwdBadOffs(env *Env, k *launch.Kernel, cases []BadOffs, seed uint64) []error {
	return eachBadOffs(env, k, cases, seed, verifyMoEFwdBadOffs)
}

func verifyMoEFwdBadOffs(env *Env, k *launch.Kernel, c BadOffs, rng *num.Rand) error {
	dt, train := k.Man.Config.DType, k.Man.Config.StoreOut
	E := len(c.Raw)
	dev := newRun(env, dt)
	defer dev.free()
	x, w := dev.upload(rng.Normal(dt, c.T*c.K, 1)), dev.upload(rng.Normal(dt, E*2*c.I*c.K, 0.1))
	var got [2][][]byte
	for i, offs := range [][]int32{c.Raw, ClampOffs(c.Raw, c.T)} {
		args := launch.MoEFwdGateUpArgs{T: c.T, K: c.K, I: c.I, E: E, X: x, W: w}
		args.Offs = dev.uploadI32(offs)
		args.Out = dev.poisoned(c.T * c.I)
		if train {
			args.De = dev.poisoned(c.T * 2 * c.I)
		}
		if dev.err != nil {
			return dev.err
		}
		plan, err := k.Plan(args)
		if err != nil {
			return err
		}
		dev.exec(plan, 60*time.Second)
		got[i] = append(got[i], dev.download(args.Out, c.T*c.I))
		if train {
			got[i] = append(got[i], dev.download(args.De, c.T*2*c.I))
		}
		if dev.err != nil {
			return dev.err
		}
	}
	for j, name := range []string{"out", "de"}[:len(got[0])] {
		if d := firstDiff(got[0][j], got[1][j]); d >= 0 {
			return fmt.Errorf("%s differs from the clamped offs' launch at element %d", name, d/2)
		}
	}
	return nil
}
