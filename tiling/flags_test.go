package tiling

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseEnums(t *testing.T) {
	t.Parallel()
	type result struct {
		V   string
		Err string
	}
	wrap := func(v any, err error) result {
		if err != nil {
			return result{Err: err.Error()}
		}
		return result{V: fmt.Sprint(v)}
	}
	got := map[string]result{
		"kernel gemm":   wrap(ParseKernel("gemm")),
		"kernel BWD":    wrap(ParseKernel("BWD_DSWIGLU")),
		"kernel bad":    wrap(ParseKernel("conv")),
		"arch sm_90a":   wrap(ParseArch("sm_90a")),
		"arch sm90a":    wrap(ParseArch("sm90a")),
		"arch 90a":      wrap(ParseArch("90a")),
		"arch 100a":     wrap(ParseArch("100a")),
		"arch SM_100A":  wrap(ParseArch("SM_100A")),
		"arch sm_90":    wrap(ParseArch("sm_90")),
		"arch empty":    wrap(ParseArch("")),
		"dtype fp16":    wrap(ParseDType("fp16")),
		"dtype bad":     wrap(ParseDType("fp8")),
		"schedule 2cta": wrap(ParseSchedule("2cta")),
		"schedule bad":  wrap(ParseSchedule("ws")),
		"scheduler clc": wrap(ParseScheduler("clc")),
		"scheduler bad": wrap(ParseScheduler("dyn")),
		"raster n":      wrap(ParseRaster("n")),
		"raster bad":    wrap(ParseRaster("k")),
		"major mn":      wrap(ParseMajor("mn")),
		"major bad":     wrap(ParseMajor("row")),
	}
	want := map[string]result{
		"kernel gemm":   {V: "gemm"},
		"kernel BWD":    {V: "bwd_dswiglu"},
		"kernel bad":    {Err: `tiling: parse kernel "conv": must be one of bwd_dswiglu, fwd_gateup, fwd_down, gemm, moe_fwd_gateup, moe_bwd_dswiglu, moe_gemm, moe_wgrad`},
		"arch sm_90a":   {V: "sm_90a"},
		"arch sm90a":    {V: "sm_90a"},
		"arch 90a":      {V: "sm_90a"},
		"arch 100a":     {V: "sm_100a"},
		"arch SM_100A":  {V: "sm_100a"},
		"arch sm_90":    {Err: `tiling: parse arch "sm_90": must be one of sm_90a, sm_100a (also accepted: sm90a, 90a, sm100a, 100a)`},
		"arch empty":    {Err: `tiling: parse arch "": must be one of sm_90a, sm_100a (also accepted: sm90a, 90a, sm100a, 100a)`},
		"dtype fp16":    {V: "fp16"},
		"dtype bad":     {Err: `tiling: parse dtype "fp8": must be one of bf16, fp16`},
		"schedule 2cta": {V: "2cta"},
		"schedule bad":  {Err: `tiling: parse schedule "ws": must be one of cooperative, pingpong, overlap, 1cta, 2cta`},
		"scheduler clc": {V: "clc"},
		"scheduler bad": {Err: `tiling: parse scheduler "dyn": must be one of static, clc, streamk, grouped`},
		"raster n":      {V: "n"},
		"raster bad":    {Err: `tiling: parse raster "k": must be one of m, n`},
		"major mn":      {V: "mn"},
		"major bad":     {Err: `tiling: parse major "row": must be one of k, mn`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("enum parsing (-want +got):\n%s", d)
	}
}

func TestParseTileCluster(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		tile    bool
		want    []int
		wantErr string
	}{
		{in: "128x128x64", tile: true, want: []int{128, 128, 64}},
		{in: " 256X64X64 ", tile: true, want: []int{256, 64, 64}},
		{in: "128x128", tile: true, wantErr: `want 3 sizes separated by 'x' like "128x128x64"`},
		{in: "128x0x64", tile: true, wantErr: `size "0": must be a positive integer`},
		{in: "128x-8x64", tile: true, wantErr: `size "-8": must be a positive integer`},
		{in: "128xx64", tile: true, wantErr: `size "": empty; must be a positive integer`},
		{in: "2x1", want: []int{2, 1}},
		{in: "1x2", want: []int{1, 2}},
		{in: "2", wantErr: `want 2 sizes separated by 'x' like "2x1"`},
		{in: "2x+1", wantErr: `size "+1": must be a positive integer`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			var got []int
			var err error
			if tt.tile {
				var m, n, k int
				m, n, k, err = ParseTile(tt.in)
				got = []int{m, n, k}
			} else {
				var m, n int
				m, n, err = ParseCluster(tt.in)
				got = []int{m, n}
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func FuzzParseTile(f *testing.F) {
	for _, s := range []string{"128x128x64", "64x256x64", "0x0x0", "1x2", "x", "9999999999x1x1", "1x1x1x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, n, k, err := ParseTile(s)
		if err != nil {
			return
		}
		if m <= 0 || n <= 0 || k <= 0 {
			t.Fatalf("ParseTile(%q) = %d, %d, %d: not positive", s, m, n, k)
		}
		m2, n2, k2, err := ParseTile(fmt.Sprintf("%dx%dx%d", m, n, k))
		if err != nil || m2 != m || n2 != n || k2 != k {
			t.Errorf("round trip of %q: %d %d %d %v", s, m2, n2, k2, err)
		}
	})
}

func FuzzParseCluster(f *testing.F) {
	for _, s := range []string{"1x1", "2x1", "1x2", "2x2", "0x1", "x", "1", "1x1x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, n, err := ParseCluster(s)
		if err != nil {
			return
		}
		if m <= 0 || n <= 0 {
			t.Fatalf("ParseCluster(%q) = %d, %d: not positive", s, m, n)
		}
		m2, n2, err := ParseCluster(fmt.Sprintf("%dx%d", m, n))
		if err != nil || m2 != m || n2 != n {
			t.Errorf("round trip of %q: %d %d %v", s, m2, n2, err)
		}
	})
}
