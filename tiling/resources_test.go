package tiling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func cfg90(m, n, stages int, s Schedule) Config {
	return Config{Kernel: KernelBwdDSwiGLU, Arch: ArchSM90a, DType: BF16, TileM: m, TileN: n, TileK: 64,
		Stages: stages, Schedule: s}.WithDefaults()
}

func cfg100(m, n, stages int, s Schedule) Config {
	c := Config{Kernel: KernelBwdDSwiGLU, Arch: ArchSM100a, DType: BF16, TileM: m, TileN: n, TileK: 64,
		Stages: stages, Schedule: s}
	if s == TwoCTA {
		c.ClusterM = 2
	}
	return c.WithDefaults()
}

type resources struct {
	Smem                                         SmemLayout
	Threads, Rows, AccRegs, TMEM, Barriers, Tens int
}

func resourcesOf(c Config) resources {
	return resources{c.Smem(), c.Threads(), c.RowsPerConsumer(), c.AccRegsPerThread(), c.TMEMColumns(), c.BarrierCount(), c.EpiTensors()}
}

func TestResources(t *testing.T) {
	t.Parallel()
	withOut := func(c Config) Config { c.StoreOut = true; return c }
	withCLC := func(c Config) Config { c.Scheduler = CLCScheduler; return c }
	tests := []struct {
		name string
		c    Config
		want resources
	}{
		{
			// Operands 5*(128+128)*64*2; epilogue 2 WG * 2 slots * 64*64*2 * 2 tensors;
			// barriers (10+8)*8 = 144 -> 256.
			name: "sm90 pingpong 128x128 s5",
			c:    cfg90(128, 128, 5, PingPong),
			want: resources{
				Smem:    SmemLayout{OperandStage: 32768, OperandB: 16384, Operands: 163840, EpilogueSlot: 8192, EpilogueOff: 163840, Epilogue: 65536, BarrierOffset: 229376, Barriers: 256, Align: 1024, Total: 230656},
				Threads: 384, Rows: 128, AccRegs: 128, Barriers: 20, Tens: 2,
			},
		},
		{
			name: "sm90 pingpong 128x128 s4 out",
			c:    withOut(cfg90(128, 128, 4, PingPong)),
			want: resources{
				Smem:    SmemLayout{OperandStage: 32768, OperandB: 16384, Operands: 131072, EpilogueSlot: 8192, EpilogueOff: 131072, Epilogue: 98304, BarrierOffset: 229376, Barriers: 256, Align: 1024, Total: 230656},
				Threads: 384, Rows: 128, AccRegs: 128, Barriers: 18, Tens: 3,
			},
		},
		{
			name: "sm90 cooperative 256x128 s3",
			c:    cfg90(256, 128, 3, Cooperative),
			want: resources{
				Smem:    SmemLayout{OperandStage: 49152, OperandB: 32768, Operands: 147456, EpilogueSlot: 8192, EpilogueOff: 147456, Epilogue: 65536, BarrierOffset: 212992, Barriers: 128, Align: 1024, Total: 214144},
				Threads: 384, Rows: 128, AccRegs: 128, Barriers: 16, Tens: 2,
			},
		},
		{
			// TMEM 2*256 = 512; barriers 6+4+4 = 14 -> 112 + 8 = 120 -> 128.
			name: "sm100 1cta 128x256 s3",
			c:    cfg100(128, 256, 3, OneCTA),
			want: resources{
				Smem:    SmemLayout{OperandStage: 49152, OperandB: 16384, Operands: 147456, EpilogueSlot: 16384, EpilogueOff: 147456, Epilogue: 65536, BarrierOffset: 212992, Barriers: 128, Align: 1024, Total: 214144},
				Threads: 256, Rows: 128, TMEM: 512, Barriers: 14, Tens: 2,
			},
		},
		{
			// Each CTA holds 128 rows of A and 128 of B. Barriers 10 + 4 +
			// 4 + 2*3 (the CLC ring, DefaultCLCStages deep) = 24 -> 192 + 8
			// + 3*16 = 248 -> 256.
			name: "sm100 2cta 256x256 s5 clc",
			c:    withCLC(cfg100(256, 256, 5, TwoCTA)),
			want: resources{
				Smem:    SmemLayout{OperandStage: 32768, OperandB: 16384, Operands: 163840, EpilogueSlot: 16384, EpilogueOff: 163840, Epilogue: 65536, BarrierOffset: 229376, Barriers: 256, Align: 1024, Total: 230656},
				Threads: 256, Rows: 128, TMEM: 512, Barriers: 24, Tens: 2,
			},
		},
		{
			// TMEM: 2*48 = 96 -> 128.
			name: "sm100 1cta 64x48",
			c:    cfg100(64, 48, 2, OneCTA),
			want: resources{
				Smem:    SmemLayout{OperandStage: 14336, OperandB: 8192, Operands: 28672, EpilogueSlot: 8192, EpilogueOff: 28672, Epilogue: 32768, BarrierOffset: 61440, Barriers: 128, Align: 1024, Total: 62592},
				Threads: 256, Rows: 64, TMEM: 128, Barriers: 12, Tens: 2,
			},
		},
		{
			name: "unknown arch",
			c:    Config{Arch: "sm_80", TileM: 128, TileN: 128, TileK: 64, Stages: 4},
			want: resources{Tens: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := resourcesOf(tt.c)
			// TestBarrierMap checks where the barriers lie.
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(SmemLayout{}, "Bars")); d != "" {
				t.Errorf("resources (-want +got):\n%s", d)
			}
			if got.Smem.Total != tt.c.SmemBytes() {
				t.Errorf("SmemBytes %d != Smem().Total %d", tt.c.SmemBytes(), got.Smem.Total)
			}
		})
	}
}

func TestTMEMColumnsSmall(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int{16: 32, 32: 64, 64: 128, 96: 256, 128: 256, 256: 512} {
		if got := cfg100(128, n, 2, OneCTA).TMEMColumns(); got != want {
			t.Errorf("TileN %d: TMEMColumns = %d, want %d", n, got, want)
		}
	}
	if got := cfg90(128, 128, 4, PingPong).TMEMColumns(); got != 0 {
		t.Errorf("sm_90a TMEMColumns = %d, want 0", got)
	}
}

func TestMaxStages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Config
		want int
	}{
		{cfg90(128, 128, 0, PingPong), 5},
		{cfg90(64, 64, 0, PingPong), 8},
		{cfg100(128, 256, 0, OneCTA), 3},
		{cfg100(256, 256, 0, TwoCTA), 5},
		{Config{Arch: "sm_80"}, 0},
	}
	for _, tt := range tests {
		if got := tt.c.MaxStages(); got != tt.want {
			t.Errorf("%s: MaxStages = %d, want %d", tt.c.Name(), got, tt.want)
		}
	}
}

func TestCLCDepth(t *testing.T) {
	t.Parallel()
	clc := func(c Config, stages int) Config { c.Scheduler, c.CLCStages = CLCScheduler, stages; return c }
	b := cfg100(256, 256, 5, TwoCTA)
	for _, tt := range []struct {
		name                     string
		c                        Config
		depth, barriers, barrier int
	}{
		{"static", b, 0, 18, 256},
		// Ring of 2: 22 barriers, 176 + 8 + 32 = 216 -> 256 bytes.
		{"clc 2", clc(b, 2), 2, 22, 256},
		{"clc default", clc(b, 0), DefaultCLCStages, 24, 256},
		// Ring of 8: 34 barriers, 272 + 8 + 128 = 408 -> 512 bytes.
		{"clc 8", clc(b, 8), 8, 34, 512},
		{"sm90", cfg90(128, 128, 4, PingPong), 0, 18, 256},
	} {
		got := []int{tt.c.CLCDepth(), tt.c.BarrierCount(), tt.c.Smem().Barriers}
		if d := cmp.Diff([]int{tt.depth, tt.barriers, tt.barrier}, got); d != "" {
			t.Errorf("%s: depth, barriers, barrier bytes (-want +got):\n%s", tt.name, d)
		}
	}
	if DefaultCLCStages != AccStages+1 || DefaultCLCStages < 2 {
		t.Errorf("DefaultCLCStages = %d, want AccStages+1 = %d and >= 2", DefaultCLCStages, AccStages+1)
	}
}

// TestBarrierMap pins where the barriers lie in the barrier region, which
// the kernels take from here: the arrays in order, back to back, the CLC
// responses 16-byte aligned, and the region holding all of them.
func TestBarrierMap(t *testing.T) {
	t.Parallel()
	withCLC := func(c Config) Config { c.Scheduler = CLCScheduler; return c }
	tests := []struct {
		name string
		c    Config
		want BarrierMap // offsets from the barrier region
	}{
		{
			// 5 stages, 2 consumers x 2 epilogue slots, the order pair.
			name: "sm90 pingpong 128x128 s5",
			c:    cfg90(128, 128, 5, PingPong),
			want: BarrierMap{Full: 0, Empty: 40, EpiFull: 80, EpiEmpty: 112, Order: 144, End: 160},
		},
		{
			name: "sm100 1cta 128x256 s3",
			c:    cfg100(128, 256, 3, OneCTA),
			want: BarrierMap{Full: 0, Empty: 24, AccFull: 48, AccEmpty: 64, EpiFull: 80, EpiEmpty: 96, TMEMSlot: 112, End: 120},
		},
		{
			// The CLC ring of DefaultCLCStages: barriers, then responses.
			name: "sm100 2cta 256x256 s5 clc",
			c:    withCLC(cfg100(256, 256, 5, TwoCTA)),
			want: BarrierMap{Full: 0, Empty: 40, AccFull: 80, AccEmpty: 96, EpiFull: 112, EpiEmpty: 128,
				CLCFull: 144, CLCEmpty: 168, CLCResponse: 192, TMEMSlot: 240, End: 248},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.c.Smem()
			rel := func(off int) int { return max(0, off-s.BarrierOffset) } // 0 stays "none"
			b := s.Bars
			got := BarrierMap{Full: rel(b.Full), Empty: rel(b.Empty), AccFull: rel(b.AccFull), AccEmpty: rel(b.AccEmpty),
				EpiFull: rel(b.EpiFull), EpiEmpty: rel(b.EpiEmpty), Order: rel(b.Order),
				CLCFull: rel(b.CLCFull), CLCEmpty: rel(b.CLCEmpty), CLCResponse: rel(b.CLCResponse), TMEMSlot: rel(b.TMEMSlot), End: rel(b.End)}
			if s.Bars.Full != s.BarrierOffset {
				t.Errorf("first barrier at %d, the region at %d", s.Bars.Full, s.BarrierOffset)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("barrier map relative to the region (-want +got):\n%s", d)
			}
			if s.Bars.End > s.BarrierOffset+s.Barriers {
				t.Errorf("barriers end at %d, past the region [%d,%d)", s.Bars.End, s.BarrierOffset, s.BarrierOffset+s.Barriers)
			}
		})
	}
}

// TestBarrierMapMatchesCount: for every config of the tuning spaces the map
// holds BarrierCount barriers, and the CLC responses are 16-byte aligned.
func TestBarrierMapMatchesCount(t *testing.T) {
	t.Parallel()
	for _, k := range Kernels() {
		for _, a := range Arches() {
			for _, c := range append(Space(k, a, BF16), SpaceStoreOut(k, a, BF16)...) {
				for _, c := range []Config{c, func() Config { c.Scheduler = CLCScheduler; return c }()} {
					if c.Arch != ArchSM100a && c.Scheduler == CLCScheduler {
						continue
					}
					s := c.Smem()
					bytes := s.Bars.End - s.BarrierOffset
					if c.Arch == ArchSM100a {
						bytes -= 8 + 16*c.CLCDepth() // the TMEM slot and the CLC responses
					}
					if bytes != 8*c.BarrierCount() {
						t.Errorf("%s: the map holds %d bytes of barriers, BarrierCount %d", c.Name(), bytes, c.BarrierCount())
					}
					if s.Bars.CLCResponse%16 != 0 {
						t.Errorf("%s: CLC responses at %d: not 16-byte aligned", c.Name(), s.Bars.CLCResponse)
					}
				}
			}
		}
	}
}
