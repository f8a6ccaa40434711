package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestFlagCompletion: the shell completion (cobra's __complete) offers
// the values of --arch, --kernel, --dtype and --name, the last element of
// a comma-separated list included, and names filtered by the flags given.
func TestFlagCompletion(t *testing.T) {
	t.Parallel()
	var sm90Gemms []string
	for _, c := range tiling.Catalog() {
		if c.Kernel == tiling.KernelGEMM && c.Arch == tiling.ArchSM90a {
			sm90Gemms = append(sm90Gemms, c.Name())
		}
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"emit", "--arch", ""}, []string{"sm_90a", "sm_100a"}},
		{[]string{"diff", "--arch", "sm_1"}, []string{"sm_100a"}},
		{[]string{"list", "--kernel", "bwd_dswiglu,fwd"}, []string{"bwd_dswiglu,fwd_gateup", "bwd_dswiglu,fwd_down"}},
		{[]string{"tune", "--dtype", ""}, []string{"bf16", "fp16"}},
		{[]string{"emit", "--kernel", "gemm", "--arch", "sm_90a", "--name", ""}, sm90Gemms},
		{[]string{"verify", "--name", sm90Gemms[0]}, []string{sm90Gemms[0]}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, append([]string{"__complete"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(l, ":") {
					got = append(got, l)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
		})
	}
}
