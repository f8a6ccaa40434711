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
		{mut(h, func(c *Config) { c.Kernel, c.Scheduler, c.Raster = KernelGEMM, StreamKScheduler, RasterN }), "gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_rn"},
		{mut(h, func(c *Config) { c.Kernel, c.MajorB, c.Residual = KernelFwdDown, MNMajor, true }), "fwd_down_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_res"},
		{mut(h, func(c *Config) { c.Kernel, c.StoreOut = KernelFwdGateUp, true }), "fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"},
		{mut(h, func(c *Config) { c.Schedule, c.TileN, c.FastSigmoid, c.SliceFrags = Overlap, 192, true, 8 }), "bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_tanh_sf8"},
		{b, "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta"},
		{mut(b, func(c *Config) { c.Scheduler = CLCScheduler; c.EpiN = 32 }), "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_e128x32s2_clc"},
		{cfg100(64, 128, 4, OneCTA), "bwd_dswiglu_sm100a_bf16_m64n128k64_s4_c1x1_1cta"},
		{mut(b, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, 2 }), "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_clc2"},
		{mut(b, func(c *Config) { c.Scheduler, c.CLCStages, c.MajorB = CLCScheduler, 5, MNMajor }), "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_bmn_clc5"},
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
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_fast", `unknown suffix "fast" (want sk, rn, g{N}, e{M}x{N}s{S}, amn, bmn, out, score, res, tanh, pipe, sf{N}, l2k, clc[{N}])`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_l2k_rn", `suffix "rn" repeated or out of order (order: sk, rn, g, e, amn, bmn, out, score, res, tanh, pipe, sf, l2k, clc)`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1", "want kernel_arch_dtype_m{M}n{N}k{K}_s{S}_c{M}x{N}_schedule[_suffixes]"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_gx", `swizzle group suffix "gx": want a positive number without leading zeros after "g"`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x32", `epilogue suffix "e64x32": want "s"`},
		{"bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_clc3", `clc ring suffix "clc3": the default 3 is left out of names`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_g8", `swizzle group suffix "g8": the default 8 is left out of names`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x64s2", `epilogue suffix "e64x64s2": the default epilogue is left out of names`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_Pingpong", `schedule token "Pingpong": must be one of cooperative, pingpong, overlap, 1cta, 2cta`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4x_c1x1_pingpong", `stages token "s4x": trailing "x"`},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1_pingpong", `cluster token "c1": want "x"`},
		{"fwd_down_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_res_bmn", "out of order"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_sf8_tanh", "out of order"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_sf08", "leading zeros"},
		{"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_overlap_sf4", "default 4"},
		{"bwd_dswiglu_sm90a_bf16_m128n128k64_s99999999999_c1x1_pingpong", "must be <="},
		{"bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_clc3", "default 3"},
		{"bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_clc02", "leading zeros"},
		{"bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_clc2_clc", "repeated"},
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

// allConfigs is every Space and SpaceStoreOut config of every kernel,
// arch and dtype, plus the Catalog.
func allConfigs() []Config {
	var cs []Config
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, d := range DTypes() {
				cs = append(cs, Space(k, a, d)...)
				cs = append(cs, SpaceStoreOut(k, a, d)...)
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
