package tiling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The D1 configuration of the sm_100a audit: 99,456 bytes of dynamic shared
// memory let two CTAs share an SM, but each allocates all 512 TMEM columns.
func d1Config() Config {
	return Config{
		Kernel: KernelGEMM, Arch: ArchSM100a, DType: BF16, TileM: 128, TileN: 192, TileK: 64,
		Stages: 2, EpiStages: 1, ClusterM: 2, ClusterN: 1, Schedule: OneCTA,
	}.WithDefaults()
}

func TestTMEMPadding(t *testing.T) {
	t.Parallel()
	type got struct {
		Pad, Total, CoResident, TMEMFit int
	}
	gemm := func(m, n, stages, epiN int) Config {
		return Config{Kernel: KernelGEMM, Arch: ArchSM100a, DType: BF16, TileM: m, TileN: n, TileK: 64,
			Stages: stages, EpiM: m, EpiN: epiN, EpiStages: 1, Schedule: OneCTA}.WithDefaults()
	}
	tests := []struct {
		name string
		c    Config
		want got
	}{
		// 512 TMEM columns: one CTA per SM. Unpadded 99,456 bytes; padded
		// to the smallest multiple of 128 above 233,472/2 - 1,024.
		{"d1 gemm 128x192 s2 e1 2x1", d1Config(), got{Pad: 115840 - 99456, Total: 115840, CoResident: 1, TMEMFit: 1}},
		// 2*96 -> 256 columns: two fit. Unpadded 57,344 + 8,192 + 128 +
		// 1,024 = 66,688 bytes let three share an SM, so pad above
		// 233,472/3 - 1,024 = 76,800.
		{"gemm 128x96 s2 e32", gemm(128, 96, 2, 32), got{Pad: 76928 - 66688, Total: 76928, CoResident: 2, TMEMFit: 2}},
		// 128 columns: four fit. Unpadded 38,016 bytes let five share an
		// SM; pad above 233,472/5 - 1,024 = 45,670.
		{"gemm 64x64 s2 e32", gemm(64, 64, 2, 32), got{Pad: 45696 - 38016, Total: 45696, CoResident: 4, TMEMFit: 4}},
		// 64 columns: eight fit, as many 256-thread CTAs as an SM holds:
		// never padded.
		{"gemm 64x32 s2 e32", gemm(64, 32, 2, 32), got{Pad: 0, Total: 29824, CoResident: 7, TMEMFit: 8}},
		// Full shared memory needs no padding.
		{"n256 s3", cfg100(128, 256, 3, OneCTA), got{Pad: 0, Total: 214144, CoResident: 1, TMEMFit: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.c.Validate(); err != nil {
				t.Fatalf("%s: %v", tt.c.Name(), err)
			}
			s := tt.c.Smem()
			g := got{s.TMEMPad, s.Total, tt.c.MaxCoResident(), tt.c.TMEMCoResident()}
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.c.Name(), d)
			}
			if s.Total != s.Operands+s.Epilogue+s.Barriers+s.Align+s.TMEMPad {
				t.Errorf("%s: Total %d is not the sum of its parts %+v", tt.c.Name(), s.Total, s)
			}
		})
	}
}

// TestTMEMCoResidencyEverywhere checks the invariant the padding keeps over
// every valid sm_100a config of a grid wider than the Space: no more CTAs
// fit on an SM than TMEM holds allocations for, and sm_90a is never
// padded.
func TestTMEMCoResidencyEverywhere(t *testing.T) {
	t.Parallel()
	lim, _ := LimitsFor(ArchSM100a)
	n := 0
	for _, k := range Kernels() {
		for _, s := range []Schedule{OneCTA, TwoCTA} {
			for _, tn := range []int{32, 64, 96, 128, 160, 192, 224, 256} {
				for st := minStages; st <= maxStages; st++ {
					for es := minEpiStages; es <= maxEpiStages; es++ {
						c := Config{Kernel: k, Arch: ArchSM100a, DType: BF16, TileM: 128, TileN: tn, TileK: 64,
							Stages: st, EpiStages: es, Schedule: s}
						if s == TwoCTA {
							c.TileM, c.ClusterM = 256, 2
						}
						c = c.WithDefaults()
						if c.Validate() != nil {
							continue
						}
						n++
						if got, fit := c.MaxCoResident(), c.TMEMCoResident(); got > fit || got < 1 {
							t.Errorf("%s: %d CTAs co-reside, TMEM holds %d", c.Name(), got, fit)
						}
						if c.SmemBytes() > lim.SmemPerBlock {
							t.Errorf("%s: padded to %d bytes, over the %d-byte block limit", c.Name(), c.SmemBytes(), lim.SmemPerBlock)
						}
					}
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d valid configs checked", n)
	}
	for _, c := range Space(KernelBwdDSwiGLU, ArchSM90a, BF16) {
		if p := c.Smem().TMEMPad; p != 0 {
			t.Errorf("%s: sm_90a padded by %d bytes", c.Name(), p)
		}
	}
}

// TestTMEMPaddingRemovesSecondCTA: of the D1 config, two unpadded CTAs
// share an SM; padded, one.
func TestTMEMPaddingRemovesSecondCTA(t *testing.T) {
	t.Parallel()
	c := d1Config()
	lim, _ := LimitsFor(ArchSM100a)
	if got := coResident(lim, c.Threads(), c.SmemBytes()-c.Smem().TMEMPad); got != 2 {
		t.Errorf("unpadded co-residency %d, want 2", got)
	}
	if got := coResident(lim, c.Threads(), c.SmemBytes()); got != 1 {
		t.Errorf("padded co-residency %d, want 1", got)
	}
}
