package mlp

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestParseOverrides: names parse into configs, one a kind, of the
// step's dtype; each bad name is an error naming it.
func TestParseOverrides(t *testing.T) {
	t.Parallel()
	const gemm = "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn"
	const bwd = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
	tests := []struct {
		names   []string
		dt      tiling.DType
		want    int
		wantErr string
	}{
		{nil, tiling.BF16, 0, ""},
		{[]string{gemm, bwd}, tiling.BF16, 2, ""},
		{[]string{"nope"}, tiling.BF16, 0, `--name "nope"`},
		{[]string{gemm, gemm}, tiling.BF16, 0, "already set by"},
		{[]string{gemm}, tiling.FP16, 0, "but --dtype is fp16"},
	}
	for _, tt := range tests {
		cs, err := ParseOverrides(tt.names, tt.dt)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseOverrides(%v, %s): err %v, want %q", tt.names, tt.dt, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(cs) != tt.want {
			t.Errorf("ParseOverrides(%v, %s) = %d configs, %v; want %d", tt.names, tt.dt, len(cs), err, tt.want)
		}
	}
}
