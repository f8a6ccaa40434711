package bench

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/num"
)

// TestCompareStats: the kernel's result block (two float64 sums, then the
// NaN count, the poisoned count and max |diff| as float64 bits) reads back
// as the host's statistics.
func TestCompareStats(t *testing.T) {
	t.Parallel()
	block := func(diff2, want2 float64, nans, poisoned uint64, maxAbs float64) []byte {
		b := make([]byte, cmpResultBytes)
		for i, v := range []uint64{math.Float64bits(diff2), math.Float64bits(want2), nans, poisoned, math.Float64bits(maxAbs)} {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		return b
	}
	for _, tt := range []struct {
		name string
		raw  []byte
		want num.ErrStats
	}{
		{"close", block(1e-4, 1, 0, 0, 0.01), num.ErrStats{RelFrobenius: 0.01, MaxAbs: 0.01, Worst: -1}},
		{"all zero", block(0, 0, 0, 0, 0), num.ErrStats{Worst: -1}},
		{"zero reference", block(4, 0, 0, 0, 2), num.ErrStats{RelFrobenius: math.Inf(1), MaxAbs: 2, Worst: -1}},
		{"bad elements", block(0, 1, 3, 2, 0), num.ErrStats{NaNs: 3, Poisoned: 2, Worst: -1}},
	} {
		if diff := cmp.Diff(tt.want, compareStats(tt.raw)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
