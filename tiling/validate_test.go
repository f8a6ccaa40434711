package tiling

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden files")

// good returns a valid config per arch to mutate.
func good(a Arch) Config {
	if a == ArchSM100a {
		return cfg100(128, 256, 3, OneCTA)
	}
	return cfg90(128, 128, 4, PingPong)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	mut := func(a Arch, f func(*Config)) Config { c := good(a); f(&c); return c }
	tests := []struct {
		name string
		c    Config
		want []string // offending fields, in order; nil for valid
	}{
		{"sm90 ok", good(ArchSM90a), nil},
		{"sm100 ok", good(ArchSM100a), nil},
		{"sm90 gemm mn majors", mut(ArchSM90a, func(c *Config) { c.Kernel, c.MajorA, c.MajorB = KernelGEMM, MNMajor, MNMajor }), nil},
		{"sm100 2cta ok", cfg100(256, 256, 5, TwoCTA), nil},
		{"sm100 1cta 64", cfg100(64, 128, 4, OneCTA), nil},
		{"sm90 epi 32", mut(ArchSM90a, func(c *Config) { c.EpiN = 32 }), nil},
		{"epi_pipe gemm", mut(ArchSM90a, func(c *Config) { c.Kernel, c.EpiPipe = KernelGEMM, true }), []string{"epi_pipe"}},
		{"sm90 epi 16", mut(ArchSM90a, func(c *Config) { c.EpiN = 16 }), []string{"epi_n"}},
		{"sm100 epi 32", mut(ArchSM100a, func(c *Config) { c.EpiN = 32; c.Stages = 4 }), nil},
		{"zero", Config{}, []string{"kernel", "arch", "dtype", "schedule", "scheduler", "raster", "swizzle_group", "major_a", "major_b", "tile_k", "stages", "epi_stages", "cluster_m", "cluster_n"}},
		{"bad arch skips shape", mut(ArchSM90a, func(c *Config) { c.Arch = "sm_80"; c.TileN = 300 }), []string{"arch"}},
		{"schedule wrong arch", mut(ArchSM90a, func(c *Config) { c.Schedule = OneCTA }), []string{"schedule"}},
		{"clc on sm90", mut(ArchSM90a, func(c *Config) { c.Scheduler = CLCScheduler }), []string{"scheduler"}},
		{"wgmma n", mut(ArchSM90a, func(c *Config) { c.TileN = 300 }), []string{"tile_n"}},
		// sm_90a: a width that is not a multiple of epi_n is legal (the last
		// sub-tile overlaps the one before; Implemented limits it to gemm),
		// one under epi_n is not; wgmma N steps by 8.
		{"wgmma n not epi multiple", mut(ArchSM90a, func(c *Config) { c.Schedule, c.TileM, c.TileN, c.Stages = Cooperative, 128, 72, 3 }), nil},
		{"wgmma n under epi", mut(ArchSM90a, func(c *Config) { c.Schedule, c.TileM, c.TileN, c.Stages = Cooperative, 128, 56, 3 }), []string{"tile_n"}},
		{"wgmma n not a multiple of 8", mut(ArchSM90a, func(c *Config) { c.Schedule, c.TileM, c.TileN, c.Stages = Cooperative, 128, 180, 3 }), []string{"tile_n"}},
		{"pingpong acc regs", mut(ArchSM90a, func(c *Config) { c.TileN = 256; c.Stages = 3 }), []string{"tile_n"}},
		// Ping-pong consumers hold up to 192 accumulators (MaxAccRegsPingPong);
		// the cooperative ones 128.
		{"pingpong 128x192", mut(ArchSM90a, func(c *Config) { c.TileN = 192; c.Stages = 4 }), nil},
		{"coop 128 rows x 192", mut(ArchSM90a, func(c *Config) { c.Schedule, c.TileM, c.TileN, c.Stages = Cooperative, 256, 192, 2 }), []string{"tile_n"}},
		{"coop 256 acc regs", mut(ArchSM90a, func(c *Config) { c.Schedule, c.TileM, c.TileN, c.Stages = Cooperative, 256, 256, 2 }), []string{"tile_n"}},
		{"pingpong tile m", mut(ArchSM90a, func(c *Config) { c.TileM = 256 }), []string{"tile_m"}},
		{"coop tile m", mut(ArchSM90a, func(c *Config) { c.Schedule = Cooperative; c.TileM = 64 }), []string{"tile_m"}},
		{"sm90 epi", mut(ArchSM90a, func(c *Config) { c.EpiM, c.EpiN = 128, 16 }), []string{"epi_m", "epi_n"}},
		{"tile k", mut(ArchSM90a, func(c *Config) { c.TileK = 32 }), []string{"tile_k"}},
		{"stages", mut(ArchSM90a, func(c *Config) { c.Stages = 9 }), []string{"stages"}},
		{"cluster", mut(ArchSM90a, func(c *Config) { c.ClusterM, c.ClusterN = 2, 2 }), []string{"cluster"}},
		{"cluster 4", mut(ArchSM90a, func(c *Config) { c.ClusterM = 4 }), []string{"cluster_m"}},
		{"swizzle group", mut(ArchSM90a, func(c *Config) { c.SwizzleGroup = 3 }), []string{"swizzle_group"}},
		{"smem sm90", mut(ArchSM90a, func(c *Config) { c.Stages = 6 }), []string{"smem_bytes"}},
		{"smem sm100", mut(ArchSM100a, func(c *Config) { c.Stages = 4 }), []string{"smem_bytes"}},
		{"major a bwd", mut(ArchSM90a, func(c *Config) { c.MajorA = MNMajor }), []string{"major_a"}},
		{"major b bad", mut(ArchSM90a, func(c *Config) { c.MajorB = "row" }), []string{"major_b"}},
		{"store out gemm", mut(ArchSM90a, func(c *Config) { c.Kernel = KernelGEMM; c.StoreOut = true }), []string{"store_out"}},
		{"store out fwd_gateup", mut(ArchSM90a, func(c *Config) { c.Kernel, c.StoreOut, c.Stages = KernelFwdGateUp, true, 4 }), nil},
		{"residual fwd_down", mut(ArchSM90a, func(c *Config) { c.Kernel, c.Residual = KernelFwdDown, true }), nil},
		{"overlap slice 8", mut(ArchSM90a, func(c *Config) { c.Schedule, c.TileN, c.SliceFrags = Overlap, 192, 8 }), nil},
		{"overlap slice default spelled out", mut(ArchSM90a, func(c *Config) { c.Schedule, c.SliceFrags = Overlap, 4 }), []string{"slice_frags"}},
		{"overlap slice not a divisor", mut(ArchSM90a, func(c *Config) { c.Schedule, c.SliceFrags = Overlap, 3 }), []string{"slice_frags"}},
		{"slice on pingpong", mut(ArchSM90a, func(c *Config) { c.SliceFrags = 8 }), []string{"slice_frags"}},
		{"residual bwd and fwd_gateup", mut(ArchSM90a, func(c *Config) { c.Residual = true }), []string{"residual"}},
		{"2cta tile and cluster", mut(ArchSM100a, func(c *Config) { c.Schedule = TwoCTA }), []string{"tile_m", "cluster"}},
		{"1cta tile m", mut(ArchSM100a, func(c *Config) { c.TileM = 256 }), []string{"tile_m"}},
		{"tcgen05 n", mut(ArchSM100a, func(c *Config) { c.TileN = 200 }), []string{"tile_n"}},
		{"sm100 epi", mut(ArchSM100a, func(c *Config) { c.EpiM, c.EpiN = 64, 128 }), []string{"epi_m", "epi_n"}},
		{"sm100 2cta bmn", mut(ArchSM100a, func(c *Config) {
			c.Schedule, c.TileM, c.TileN, c.ClusterM, c.Stages, c.MajorB = TwoCTA, 256, 96, 2, 4, MNMajor
			c.EpiN = 32
		}), []string{"tile_n"}},
		{"epi stages", mut(ArchSM90a, func(c *Config) { c.EpiStages = 0 }), []string{"epi_stages"}},
		{"clc ring 2", mut(ArchSM100a, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, 2 }), nil},
		{"clc ring 8", mut(ArchSM100a, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, 8 }), nil},
		{"clc ring of one", mut(ArchSM100a, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, 1 }), []string{"clc_stages"}},
		{"clc ring 9", mut(ArchSM100a, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, 9 }), []string{"clc_stages"}},
		{"clc ring default spelled out", mut(ArchSM100a, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, DefaultCLCStages }), []string{"clc_stages"}},
		{"clc ring without clc", mut(ArchSM100a, func(c *Config) { c.CLCStages = 2 }), []string{"clc_stages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.c.Validate()
			var got []string
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("Validate() = %T %v, want *ValidationError", err, err)
				}
				got = ve.Fields()
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("problem fields (-want +got):\n%s\nerror:\n%v", d, err)
			}
		})
	}
}

// TestValidateGolden pins the full error text: users read these messages.
func TestValidateGolden(t *testing.T) {
	t.Parallel()
	mut := func(a Arch, f func(*Config)) Config { c := good(a); f(&c); return c }
	cases := map[string]Config{
		"zero":           {},
		"wgmma_n":        mut(ArchSM90a, func(c *Config) { c.TileN = 300 }),
		"acc_regs":       mut(ArchSM90a, func(c *Config) { c.TileN = 256; c.Stages = 3 }),
		"smem_sm90":      mut(ArchSM90a, func(c *Config) { c.Stages = 6; c.StoreOut = true }),
		"smem_sm100":     mut(ArchSM100a, func(c *Config) { c.Stages = 5 }),
		"wrong_schedule": mut(ArchSM90a, func(c *Config) { c.Schedule = TwoCTA; c.Scheduler = CLCScheduler }),
		"many": mut(ArchSM90a, func(c *Config) {
			c.TileK = 48
			c.ClusterM, c.ClusterN = 2, 2
			c.MajorA = MNMajor
			c.EpiN = 128
			c.SwizzleGroup = 0
		}),
		"2cta":      mut(ArchSM100a, func(c *Config) { c.Schedule, c.TileM, c.ClusterN = TwoCTA, 128, 2 }),
		"sm100_epi": mut(ArchSM100a, func(c *Config) { c.EpiM, c.EpiN, c.TileN = 256, 48, 272 }),
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := c.Validate()
			if err == nil {
				t.Fatalf("Validate(%s) = nil, want an error", c.Name())
			}
			got := err.Error() + "\n"
			path := filepath.Join("testdata", "errors", name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./tiling -run Golden -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-want +got):\n%s", path, d)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	e := &ValidationError{Problems: []Problem{
		{Field: "tile_n", Value: "300", Rule: "must be a multiple of 8 in [8,256] (wgmma N)"},
		{Field: "arch", Value: "", Rule: "must be one of sm_90a, sm_100a"},
	}}
	want := "tile_n=300: must be a multiple of 8 in [8,256] (wgmma N)\narch=\"\": must be one of sm_90a, sm_100a"
	if d := cmp.Diff(want, e.Error()); d != "" {
		t.Errorf("Error() (-want +got):\n%s", d)
	}
	if !strings.Contains(e.Error(), "\n") {
		t.Error("one problem per line")
	}
}

// FuzzValidate checks that Validate and the resource model never panic and
// that an accepted config fits in shared memory and names round-trip.
func FuzzValidate(f *testing.F) {
	f.Add(true, false, 128, 128, 64, 4, 1, 1, 64, 64, 2)
	f.Add(false, true, 256, 256, 64, 5, 2, 1, 128, 64, 2)
	f.Add(false, false, 0, -8, 1<<40, 9, 0, 3, 0, 0, -1)
	f.Fuzz(func(t *testing.T, sm90, coop bool, m, n, k, stages, cm, cn, em, en, es int) {
		c := good(ArchSM100a)
		if sm90 {
			c = good(ArchSM90a)
		}
		if coop {
			c.Schedule = map[Arch]Schedule{ArchSM90a: Cooperative, ArchSM100a: TwoCTA}[c.Arch]
		}
		c.TileM, c.TileN, c.TileK, c.Stages = m, n, k, stages
		c.ClusterM, c.ClusterN, c.EpiM, c.EpiN, c.EpiStages = cm, cn, em, en, es
		if c.Validate() != nil {
			return
		}
		if c.SmemBytes() > smemPerBlock {
			t.Errorf("%s validates but needs %d bytes", c.Name(), c.SmemBytes())
		}
		got, err := ParseName(c.Name())
		if err != nil || got != c {
			t.Errorf("ParseName(%s) = %+v, %v", c.Name(), got, err)
		}
	})
}

// TestStoreOutRefusalNamesKinds: store_out on a kind without a second
// output is refused naming every kind that has one (the registry's, so a
// new kind with StoreOut cannot be left out of the message).
func TestStoreOutRefusalNamesKinds(t *testing.T) {
	t.Parallel()
	c := good(ArchSM90a)
	c.Kernel, c.StoreOut = KernelGEMM, true
	err := c.Validate()
	if err == nil {
		t.Fatal("store_out on gemm: no error")
	}
	var missing []Kernel
	for _, k := range AllKernels() {
		if s, _ := KindOf(k); s.StoreOut && !strings.Contains(err.Error(), string(k)) {
			missing = append(missing, k)
		}
	}
	if diff := cmp.Diff([]Kernel(nil), missing); diff != "" {
		t.Errorf("%v\ndoes not name the kinds with store_out (-want +got):\n%s", err, diff)
	}
}
