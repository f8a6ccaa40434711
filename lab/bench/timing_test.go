package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

func TestQuantiles(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Stats
	}{
		{"empty", nil, Stats{}},
		{"one", []float64{7}, Stats{Median: 7, P20: 7, P80: 7, N: 1}},
		{"unsorted eleven", []float64{10, 0, 9, 1, 8, 2, 7, 3, 6, 4, 5}, Stats{Median: 5, P20: 2, P80: 8, N: 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float64(nil), tt.in...)
			if diff := cmp.Diff(tt.want, Quantiles(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tt.in); diff != "" {
				t.Errorf("Quantiles changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCublasLayouts(t *testing.T) {
	for _, tt := range []struct {
		a, b         tiling.Major
		wantA, wantB bool
	}{
		{tiling.KMajor, tiling.KMajor, false, true},   // A [M,K], B [N,K]
		{tiling.MNMajor, tiling.MNMajor, true, false}, // A [K,M], B [K,N]
		{tiling.KMajor, tiling.MNMajor, false, false},
	} {
		ta, tb := cublasTranspose(tiling.Config{MajorA: tt.a, MajorB: tt.b})
		if ta != tt.wantA || tb != tt.wantB {
			t.Errorf("majors %s/%s: transA=%v transB=%v, want %v %v", tt.a, tt.b, ta, tb, tt.wantA, tt.wantB)
		}
	}
}
