package launch

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

func TestCheckBwdShape(t *testing.T) {
	cfg, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		M, K, I int
		wantErr []string
	}{
		{"seed", 16384, 768, 4608, nil},
		{"ragged M, smallest K", 129, 8, 200, nil},
		{"K not a multiple of 8", 64, 12, 64, []string{"K=12", "multiple of 8"}},
		{"I not a multiple of 8", 64, 64, 100, []string{"I=100", "16-byte"}},
		{"every problem", 0, 0, 0, []string{"M=0", "K=0", "I=0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBwdShape(cfg, tt.M, tt.K, tt.I)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
