package tiling

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestName(t *testing.T) {
	t.Parallel()
	mut := func(c Config, f func(*Config)) Config { f(&c); return c }
	h := cfg90(128, 128, 4, PingPong)
	b := cfg100(256, 256, 5, TwoCTA)
	tests := []struct {
		c    Config
		want string
	}{
		{h, "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"},
		{mut(h, func(c *Config) { c.Raster = RasterN }), "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn"},
		{mut(h, func(c *Config) { c.SwizzleGroup = 16 }), "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_g16"},
		{mut(h, func(c *Config) { c.EpiStages = 3 }), "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x64s3"},
		{mut(h, func(c *Config) { c.MajorB = MNMajor; c.StoreOut = true }), "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out"},
		{mut(h, func(c *Config) {
			c.Kernel, c.DType, c.Raster, c.SwizzleGroup, c.MajorA, c.MajorB = KernelGEMM, FP16, RasterN, 1, MNMajor, MNMajor
		}), "gemm_sm90a_fp16_m128n128k64_s4_c1x1_pingpong_rn_g1_amn_bmn"},
		{mut(h, func(c *Config) { c.Kernel, c.MajorB, c.Residual = KernelFwdDown, MNMajor, true }), "fwd_down_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_res"},
		{mut(h, func(c *Config) { c.Kernel, c.StoreOut = KernelFwdGateUp, true }), "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"},
		{mut(h, func(c *Config) { c.Schedule, c.TileN, c.FastSigmoid, c.SliceFrags = Overlap, 192, true, 8 }), "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_tanh_sf8"},
		{b, "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta"},
		{mut(b, func(c *Config) { c.Scheduler = CLCScheduler; c.EpiN = 32 }), "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_e128x32s2_clc"},
		{cfg100(64, 128, 4, OneCTA), "bwd_dswiglu_sm100a_bf16_m64n128k64_s4_c1x1_1cta"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if err := tt.c.Validate(); err != nil {
				t.Fatalf("test config invalid: %v", err)
			}
			if got := tt.c.Name(); got != tt.want {
				t.Errorf("Name() = %q, want %q", got, tt.want)
			}
			got, err := ParseName(tt.want)
			if err != nil {
				t.Fatalf("ParseName: %v", err)
			}
			if d := cmp.Diff(tt.c, got); d != "" {
				t.Errorf("ParseName (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseNameErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, wantErr string }{
		{"", "must start with a kernel kind"},
		{"conv_sm90a_bf16_m128n128k64_s4_c1x1_pingpong", "must start with a kernel kind"},
		{"bwd_dswiglu_sm80_bf16_m128n128k64_s4_c1x1_pingpong", `arch token "sm80"`},
		{"bwd_dswiglu_sm90a_fp8_m128n128k64_s4_c1x1_pingpong", `dtype token "fp8"`},
		{"bwd_dswiglu_sm90a_bf16_m128n128_s4_c1x1_pingpong", `tile token "m128n128"`},
		{"bwd_dswiglu_sm90a_bf16_m0128n128k64_s4_c1x1_pingpong", "leading zeros"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_warp", `schedule token "warp"`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1", "want kernel_arch"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_g8", "default 8"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x64s2", "default epilogue"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_bmn", "out of order"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_out", "repeated"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_fast", "unknown suffix"},
		{"fwd_down_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_res_bmn", "out of order"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_sf8_tanh", "out of order"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_sf08", "leading zeros"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_sf4", "default 4"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s99999999999_c1x1_pingpong", "must be <="},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := ParseName(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseName(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

var cIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// allConfigs is every Space config of every kernel, arch and dtype, plus
// the Catalog.
func allConfigs() []Config {
	var cs []Config
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				cs = append(cs, Space(k, a, d)...)
			}
		}
	}
	return append(cs, Catalog()...)
}

func TestNameRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range allConfigs() {
		n := c.Name()
		if !cIdent.MatchString(n) || len(n) > 200 {
			t.Errorf("%q is not a C identifier and short file name", n)
		}
		got, err := ParseName(n)
		if err != nil {
			t.Errorf("ParseName(%q): %v", n, err)
			continue
		}
		if d := cmp.Diff(c, got); d != "" {
			t.Errorf("ParseName(%q) (-want +got):\n%s", n, d)
		}
	}
}

func FuzzParseName(f *testing.F) {
	for _, c := range Catalog() {
		f.Add(c.Name())
	}
	f.Add("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g16_e64x64s3_bmn_out")
	f.Add("gemm_sm100a_fp16_m64n16k64_s2_c1x1_1cta_amn_clc")
	f.Add("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_g08")
	f.Add("fwd_down_sm90a_bf16_m1n1k1_s1_c1x1_2cta_e1x1s1")
	f.Add("fwd_down_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_res")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseName(s)
		if err != nil {
			return
		}
		// Only canonical names parse, so the name comes back unchanged.
		if got := c.Name(); got != s {
			t.Errorf("Name(ParseName(%q)) = %q", s, got)
		}
	})
}
