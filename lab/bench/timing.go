package bench

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// TimeEach runs f reps times, each bracketed by events on the default
// stream, and returns the per-call times in microseconds. All events are
// recorded first and read after one synchronisation, so host overhead does
// not leak into the times.
func TimeEach(ctx *cu.Context, reps int, timeout time.Duration, what string, f func(rep int) error) ([]float64, error) {
	evs := make([]*cu.Event, 0, 2*reps)
	defer func() {
		for _, e := range evs {
			_ = e.Destroy()
		}
	}()
	for i := 0; i < 2*reps; i++ {
		e, err := ctx.NewEvent()
		if err != nil {
			return nil, err
		}
		evs = append(evs, e)
	}
	for i := 0; i < reps; i++ {
		if err := evs[2*i].Record(nil); err != nil {
			return nil, err
		}
		if err := f(i); err != nil {
			return nil, err
		}
		if err := evs[2*i+1].Record(nil); err != nil {
			return nil, err
		}
	}
	if err := ctx.Synchronize(timeout, what); err != nil {
		return nil, err
	}
	us := make([]float64, reps)
	for i := range us {
		ms, err := cu.Elapsed(evs[2*i], evs[2*i+1])
		if err != nil {
			return nil, err
		}
		us[i] = float64(ms) * 1000
	}
	return us, nil
}

// Warm runs f until d has passed (at least twice), synchronising each
// time, so clocks are up and first-launch costs are paid before timing.
func Warm(ctx *cu.Context, d, timeout time.Duration, what string, f func(rep int) error) error {
	start := time.Now()
	for i := 0; i < 2 || time.Since(start) < d; i++ {
		if err := f(i); err != nil {
			return err
		}
		if err := ctx.Synchronize(timeout, what); err != nil {
			return err
		}
	}
	return nil
}

// Quantiles summarises per-call times (microseconds): median, p20, p80.
func Quantiles(us []float64) Stats {
	if len(us) == 0 {
		return Stats{}
	}
	s := append([]float64(nil), us...)
	sort.Float64s(s)
	q := func(p float64) float64 { return s[int(math.Round(p*float64(len(s)-1)))] }
	return Stats{Median: q(0.5), P20: q(0.2), P80: q(0.8), N: len(s)}
}

// Filler fills device buffers from a block of random data on the device,
// starting at a different offset each call, so no buffer is zeros or a
// copy of another (timing on zeros runs faster than on real data).
type Filler struct {
	Ctx   *cu.Context
	Src   cu.DevicePtr
	Size  int // bytes at Src
	shift int
}

// Fill writes n bytes at p.
func (f *Filler) Fill(p cu.DevicePtr, n int) error {
	for off := 0; off < n; {
		start := (f.shift * 4099 * 2) % (f.Size / 2)
		chunk := min(n-off, f.Size-start) &^ 1
		if chunk <= 0 {
			chunk = min(n-off, 2)
		}
		if err := f.Ctx.MemcpyDtoD(p+cu.DevicePtr(off), f.Src+cu.DevicePtr(start), uint64(chunk)); err != nil {
			return err
		}
		off += chunk
		f.shift++
	}
	return nil
}

// RotatedSets is how many input sets of setBytes each a benchmark rotates
// through so that together they are at least 3x the L2 (from 2 up to
// most): every timed call then reads its inputs from HBM, as in a real run.
func RotatedSets(dev cu.Device, setBytes, most int) (int, error) {
	l2, err := dev.Attribute(cu.AttrL2CacheSize)
	if err != nil {
		return 0, err
	}
	return min(most, max(2, int(math.Ceil(3*float64(l2)/float64(setBytes))))), nil
}

// Buf is one device buffer of a rotated input set: N bytes at *P, filled
// with random data when it is an Input, with the poison pattern otherwise
// (so an element a kernel leaves unwritten shows up in the comparison).
type Buf struct {
	P     *cu.DevicePtr
	N     int
	Input bool
}

// AllocBufs allocates bufs in b and fills them (inputs from fl, outputs
// poisoned for dt).
func AllocBufs(ctx *cu.Context, b *cu.Buffers, fl *Filler, dt tiling.DType, bufs []Buf) error {
	for _, a := range bufs {
		var err error
		if *a.P, err = b.Alloc(a.N); err != nil {
			return fmt.Errorf("bench: allocate %d bytes: %w", a.N, err)
		}
		if a.Input {
			err = fl.Fill(*a.P, a.N)
		} else {
			err = ctx.MemsetD16(*a.P, num.Poison(dt), uint64(a.N/2))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
