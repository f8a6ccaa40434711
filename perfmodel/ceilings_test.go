package perfmodel

import "testing"

func TestCeilingsFloorUS(t *testing.T) {
	t.Parallel()
	c := Ceilings{GemmTFLOPs: 800, CopyGBs: 4000}
	for _, tt := range []struct {
		name         string
		c            Ceilings
		flops, bytes float64
		want         float64
	}{
		{"compute-bound", c, 8e12, 4e9, 10000}, // 8e12/800e12 s = 10 ms > 4e9/4000e9 s = 1 ms
		{"memory-bound", c, 8e9, 4e10, 10000},  // 10 us of FLOPs, 10 ms of bytes
		{"unknown GEMM rate", Ceilings{CopyGBs: 4000}, 1, 1, 0},
		{"unknown bandwidth", Ceilings{GemmTFLOPs: 800}, 1, 1, 0},
	} {
		if got := tt.c.FloorUS(tt.flops, tt.bytes); got < tt.want*(1-1e-12) || got > tt.want*(1+1e-12) {
			t.Errorf("%s: FloorUS = %v, want %v", tt.name, got, tt.want)
		}
	}
}
