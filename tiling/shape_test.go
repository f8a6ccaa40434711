package tiling

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Shape
		wantErr string
	}{
		{in: "16384,768,4608", want: Shape{M: 16384, K: 768, I: 4608}},
		{in: "M=16384,K=768,I=4608", want: Shape{M: 16384, K: 768, I: 4608}},
		{in: " i=4608, m=1 ,K=8", want: Shape{M: 1, K: 8, I: 4608}},
		{in: "M=7,N=16,K=8", want: Shape{M: 7, K: 8, I: 16}},
		{in: "16384,768", wantErr: "want three sizes"},
		{in: "16384,768,4608,1", wantErr: "want three sizes"},
		{in: "0,768,4608", wantErr: `token "0": must be a positive integer`},
		{in: "-1,768,4608", wantErr: `token "-1": must be a positive integer`},
		{in: "16384,770,4608", wantErr: `token "770": K must be a multiple of 8`},
		{in: "M=16384,K=768,I=4612", wantErr: `token "I=4612": I must be a multiple of 8`},
		{in: "M=1,K=8,X=8", wantErr: `token "X=8": key must be M, K or I`},
		{in: "M=1,K=8,K=8", wantErr: `token "K=8": size given twice`},
		{in: "M=1,8,I=8", wantErr: `token "8": want KEY=VALUE`},
		{in: "1,8,99999999999", wantErr: "must be a positive integer <="},
		{in: "1,8,8e3", wantErr: `token "8e3"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseShape(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseShape(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseShape(%q): %v", tt.in, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseShape(%q) (-want +got):\n%s", tt.in, d)
			}
			if back, err := ParseShape(got.String()); err != nil || back != got {
				t.Errorf("ParseShape(%q.String()) = %v, %v", got, back, err)
			}
		})
	}
}

func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"16384,768,4608", "M=16384,K=768,I=4608", "1,8,8", "M=1,N=8,K=8", "0,0,0", "a,b,c", "M=,K=,I=", ",,", "M=1,M=1,M=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShape(s)
		if err != nil {
			return
		}
		if err := sh.Validate(); err != nil {
			t.Errorf("ParseShape(%q) = %v, which does not validate: %v", s, sh, err)
		}
		if back, err := ParseShape(sh.String()); err != nil || back != sh {
			t.Errorf("round trip of %v: %v, %v", sh, back, err)
		}
	})
}

// TestParseKindShape: each kind reads a positional --shape in its own
// order (gemm M,N,K, the MLP kinds M,K,I), the keyed form the same for
// every kind, and FormatKindShape writes what ParseKindShape reads back.
func TestParseKindShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind    Kernel
		in      string
		want    Shape
		wantErr string
	}{
		{kind: KernelGEMM, in: "4096,7168,2048", want: Shape{M: 4096, K: 2048, I: 7168}},
		{kind: KernelGEMM, in: "M=4096,N=7168,K=2048", want: Shape{M: 4096, K: 2048, I: 7168}},
		{kind: KernelGEMM, in: "M=4096,K=2048,I=7168", want: Shape{M: 4096, K: 2048, I: 7168}},
		{kind: KernelGEMM, in: "4096,7168", wantErr: `want three sizes "M,N,K"`},
		{kind: KernelGEMM, in: "4096,7170,2048", wantErr: `token "7170": N must be a multiple of 8`},
		{kind: KernelGEMM, in: "4096,7168,2050", wantErr: `token "2050": K must be a multiple of 8`},
		{kind: KernelBwdDSwiGLU, in: "4096,7168,2048", want: Shape{M: 4096, K: 7168, I: 2048}},
		{kind: KernelFwdGateUp, in: "4096,7168,2048", want: Shape{M: 4096, K: 7168, I: 2048}},
		{kind: KernelFwdDown, in: "4096,7168,2048", want: Shape{M: 4096, K: 7168, I: 2048}},
		{kind: KernelFwdDown, in: "M=4096,K=7168,I=2048", want: Shape{M: 4096, K: 7168, I: 2048}},
		{kind: KernelBwdDSwiGLU, in: "4096,7168", wantErr: `want three sizes "M,K,I"`},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+"/"+tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseKindShape(tt.kind, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseKindShape(%s, %q) error = %v, want it to contain %q", tt.kind, tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseKindShape(%s, %q): %v", tt.kind, tt.in, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseKindShape(%s, %q) (-want +got):\n%s", tt.kind, tt.in, d)
			}
			for _, s := range []string{FormatKindShape(tt.kind, got), got.String()} {
				if back, err := ParseKindShape(tt.kind, s); err != nil || back != got {
					t.Errorf("ParseKindShape(%s, %q) = %v, %v; want %v", tt.kind, s, back, err, got)
				}
			}
		})
	}
}

func TestShapeOrder(t *testing.T) {
	t.Parallel()
	got := map[Kernel]string{}
	for _, k := range Kernels() {
		got[k] = ShapeOrder(k)
	}
	want := map[Kernel]string{KernelBwdDSwiGLU: "M,K,I", KernelFwdGateUp: "M,K,I", KernelFwdDown: "M,K,I", KernelGEMM: "M,N,K"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ShapeOrder (-want +got):\n%s", d)
	}
}
