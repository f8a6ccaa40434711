package pick

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestParseShapes: verify's and bench's --shape is read in the order of
// the selection's kind (its --name configs' kind, else --kernel), the
// keyed form the same for every kind, and a positional shape with names
// of several kinds is a usage error.
func TestParseShapes(t *testing.T) {
	t.Parallel()
	const (
		gemmName = "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong"
		bwdName  = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"
	)
	tests := []struct {
		name    string
		kernel  string
		names   []string
		shapes  []string
		want    []tiling.Shape
		wantErr string
	}{
		{name: "bwd kernel", kernel: "bwd_dswiglu", shapes: []string{"64,128,256"}, want: []tiling.Shape{{M: 64, K: 128, I: 256}}},
		{name: "gemm kernel", kernel: "gemm", shapes: []string{"64,128,256;8,16,24"}, want: []tiling.Shape{{M: 64, K: 256, I: 128}, {M: 8, K: 24, I: 16}}},
		{name: "gemm by name", kernel: "bwd_dswiglu", names: []string{gemmName}, shapes: []string{"64,128,256"}, want: []tiling.Shape{{M: 64, K: 256, I: 128}}},
		{name: "bwd by name", kernel: "gemm", names: []string{bwdName}, shapes: []string{"64,128,256"}, want: []tiling.Shape{{M: 64, K: 128, I: 256}}},
		{name: "mixed keyed", kernel: "gemm", names: []string{gemmName, bwdName}, shapes: []string{"M=64,N=128,K=256"}, want: []tiling.Shape{{M: 64, K: 256, I: 128}}},
		{name: "mixed positional", kernel: "gemm", names: []string{gemmName, bwdName}, shapes: []string{"64,128,256"}, wantErr: "give it keyed"},
		{name: "gemm bad N", kernel: "gemm", shapes: []string{"64,100,256"}, wantErr: `token "100": N must be a multiple of 8`},
		{name: "empty", kernel: "gemm", shapes: []string{";"}, wantErr: "no shape given; want M,N,K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := &Request{Kernels: []string{tt.kernel}, Names: tt.names}
			got, err := o.ParseShapes(tt.shapes)
			if tt.wantErr != "" {
				var ue *UsageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
					t.Fatalf("ParseShapes(%q) error = %v, want a usage error containing %q", tt.shapes, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseShapes(%q) (-want +got):\n%s", tt.shapes, d)
			}
		})
	}
}
