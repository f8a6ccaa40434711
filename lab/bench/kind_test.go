package bench

import (
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestParseKind: the positional word and --kernel agree or are errors.
func TestParseKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args      []string
		kernel    string
		kernelSet bool
		want      tiling.Kernel
		wantErr   bool
	}{
		{nil, "", false, tiling.KernelBwdDSwiGLU, false},
		{[]string{"bwd"}, "", false, tiling.KernelBwdDSwiGLU, false},
		{[]string{"gateup"}, "", false, tiling.KernelFwdGateUp, false},
		{nil, "fwd_gateup", true, tiling.KernelFwdGateUp, false},
		{[]string{"gateup"}, "fwd_gateup", true, tiling.KernelFwdGateUp, false},
		{[]string{"gateup"}, "bwd_dswiglu", true, "", true},
		{[]string{"nope"}, "", false, "", true},
		{[]string{""}, "", false, "", true},
		{[]string{"bwd", "gateup"}, "", false, "", true},
		{nil, "gemm", true, "", true},
		{nil, "", true, "", true},
	}
	for _, tt := range tests {
		got, err := ParseKind(tt.args, tt.kernel, tt.kernelSet)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseKind(%q, %q, %v) = %q, %v; want %q (error %v)", tt.args, tt.kernel, tt.kernelSet, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestCheckKind: a config of another kind is an error naming both.
func TestCheckKind(t *testing.T) {
	t.Parallel()
	c, err := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckKind(tiling.KernelBwdDSwiGLU, c); err != nil {
		t.Errorf("same kind: %v", err)
	}
	want := "bench gateup: config " + c.Name() + " is a bwd_dswiglu kernel (bench bwd times bwd_dswiglu, bench gateup fwd_gateup)"
	if err := CheckKind(tiling.KernelFwdGateUp, c); err == nil || err.Error() != want {
		t.Errorf("other kind: %v, want %s", err, want)
	}
}
