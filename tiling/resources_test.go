package tiling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
				Smem:    SmemLayout{OperandStage: 32768, Operands: 163840, EpilogueSlot: 8192, EpilogueOff: 163840, Epilogue: 65536, BarrierOffset: 229376, Barriers: 256, Align: 1024, Total: 230656},
				Threads: 384, Rows: 128, AccRegs: 128, Barriers: 20, Tens: 2,
			},
		},
		{
			name: "sm90 pingpong 128x128 s4 out",
			c:    withOut(cfg90(128, 128, 4, PingPong)),
			want: resources{
				Smem:    SmemLayout{OperandStage: 32768, Operands: 131072, EpilogueSlot: 8192, EpilogueOff: 131072, Epilogue: 98304, BarrierOffset: 229376, Barriers: 256, Align: 1024, Total: 230656},
				Threads: 384, Rows: 128, AccRegs: 128, Barriers: 18, Tens: 3,
			},
		},
		{
			name: "sm90 cooperative 256x128 s3",
			c:    cfg90(256, 128, 3, Cooperative),
			want: resources{
				Smem:    SmemLayout{OperandStage: 49152, Operands: 147456, EpilogueSlot: 8192, EpilogueOff: 147456, Epilogue: 65536, BarrierOffset: 212992, Barriers: 128, Align: 1024, Total: 214144},
				Threads: 384, Rows: 128, AccRegs: 128, Barriers: 16, Tens: 2,
			},
		},
		{
			// TMEM 2*256 = 512; barriers 6+4+4 = 14 -> 112 + 8 = 120 -> 128.
			name: "sm100 1cta 128x256 s3",
			c:    cfg100(128, 256, 3, OneCTA),
			want: resources{
				Smem:    SmemLayout{OperandStage: 49152, Operands: 147456, EpilogueSlot: 16384, EpilogueOff: 147456, Epilogue: 65536, BarrierOffset: 212992, Barriers: 128, Align: 1024, Total: 214144},
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
				Smem:    SmemLayout{OperandStage: 32768, Operands: 163840, EpilogueSlot: 16384, EpilogueOff: 163840, Epilogue: 65536, BarrierOffset: 229376, Barriers: 256, Align: 1024, Total: 230656},
				Threads: 256, Rows: 128, TMEM: 512, Barriers: 24, Tens: 2,
			},
		},
		{
			// TMEM: 2*48 = 96 -> 128.
			name: "sm100 1cta 64x48",
			c:    cfg100(64, 48, 2, OneCTA),
			want: resources{
				Smem:    SmemLayout{OperandStage: 14336, Operands: 28672, EpilogueSlot: 8192, EpilogueOff: 28672, Epilogue: 32768, BarrierOffset: 61440, Barriers: 128, Align: 1024, Total: 62592},
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
			if d := cmp.Diff(tt.want, got); d != "" {
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
