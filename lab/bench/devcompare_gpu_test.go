//go:build gpu

package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/tests/gputest"
	"github.com/swigen/swigen/tiling"
)

// TestComparerMatchesHost: the device comparison gives the host's
// statistics (num.CompareRawBoth) on random data with NaNs, Infs and
// poisoned elements planted, at sizes off every block and grid multiple.
func TestComparerMatchesHost(t *testing.T) {
	ctx, tc := gputest.Open(t)
	c, err := NewComparer(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, dt := range []tiling.DType{tiling.BF16, tiling.FP16} {
		for _, n := range []int{255, 256*1056 + 3, 3_000_001} {
			for _, plant := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/n%d/plant=%v", dt, n, plant), func(t *testing.T) {
					r := num.NewRand(uint64(n) + 7)
					want := num.Encode(dt, r.Normal(dt, n, 1))
					got := num.Encode(dt, r.Normal(dt, n, 1))
					for i := 0; i < n; i += 3 {
						copy(got[2*i:2*i+2], want[2*i:2*i+2]) // some exact
					}
					if plant {
						nan := num.Encode(dt, []float32{float32(math.NaN())})
						inf := num.Encode(dt, []float32{float32(math.Inf(1))})
						for _, i := range []int{0, n / 2, n - 1} {
							copy(got[2*i:], nan)
						}
						copy(got[2*(n/3):], inf)
						binary.LittleEndian.PutUint16(got[2*(n/4):], num.Poison(dt))
						// The reference's own NaN (poison a baseline left),
						// equal Infs, and -0 against +0.
						binary.LittleEndian.PutUint16(want[2*(n/5):], num.Poison(dt))
						copy(got[2*(n/6):], inf)
						copy(want[2*(n/6):], inf)
						copy(got[2*(n/7):], num.Encode(dt, []float32{float32(math.Copysign(0, -1))}))
						copy(want[2*(n/7):], num.Encode(dt, []float32{0}))
					}
					host := num.CompareRawBoth(dt, got, want)
					dev, err := c.Compare(dt, gputest.Upload(t, ctx, got), gputest.Upload(t, ctx, want), n, 10*time.Second)
					if err != nil {
						t.Fatal(err)
					}
					if dev.NaNs != host.NaNs || dev.Poisoned != host.Poisoned || dev.MaxAbs != host.MaxAbs ||
						math.Abs(dev.RelFrobenius-host.RelFrobenius) > 1e-9*math.Max(host.RelFrobenius, 1e-30) {
						t.Errorf("device %v, host %v", dev, host)
					}
				})
			}
		}
	}
}
