package gen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// sm100Configs are the sm_100a bwd_dswiglu configs of the space and catalog.
func sm100Configs() []tiling.Config {
	var cfgs []tiling.Config
	for _, d := range []tiling.DType{tiling.BF16, tiling.FP16} {
		cfgs = append(cfgs, tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM100a, d)...)
	}
	for _, c := range tiling.Catalog() {
		if c.Arch == tiling.ArchSM100a && c.Kernel == tiling.KernelBwdDSwiGLU {
			cfgs = append(cfgs, c)
		}
	}
	return cfgs
}

// TestSM100ViewMatchesResourceModel checks that the layout the generator
// emits is the one tiling's resource model prunes with.
func TestSM100ViewMatchesResourceModel(t *testing.T) {
	t.Parallel()
	cfgs := sm100Configs()
	if len(cfgs) == 0 {
		t.Fatal("no sm_100a configs in the space or catalog")
	}
	for _, c := range cfgs {
		v, err := newSM100View(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		lay := c.Smem()
		if v.SmemBytes != c.SmemBytes() || v.SmemBytes > 232448 {
			t.Errorf("%s: view smem %d bytes, tiling model %d (limit 232448)", c.Name(), v.SmemBytes, c.SmemBytes())
		}
		if cols := v.TmemCols; cols > 512 || cols < 32 || cols&(cols-1) != 0 || cols < 2*c.TileN || cols != c.TMEMColumns() {
			t.Errorf("%s: %d TMEM columns: want a power of two in [max(32, 2*%d), 512] equal to tiling's %d", c.Name(), cols, c.TileN, c.TMEMColumns())
		}
		if got, want := v.barrierCount(), c.BarrierCount(); got != want {
			t.Errorf("%s: %d barriers, tiling.BarrierCount %d", c.Name(), got, want)
		}
		// Every region lies inside its tiling region and the barrier
		// region holds the barriers, the CLC response and the TMEM slot.
		if end := v.EpiOff + c.EpiStages*v.EpiSlotBytes; v.EpiOff != lay.Operands || end != lay.BarrierOffset {
			t.Errorf("%s: epilogue ring [%d,%d), tiling [%d,%d)", c.Name(), v.EpiOff, end, lay.EpilogueOff, lay.BarrierOffset)
		}
		if v.Stages*v.StageBytes != lay.Operands {
			t.Errorf("%s: operand ring %d bytes, tiling %d", c.Name(), v.Stages*v.StageBytes, lay.Operands)
		}
		if v.TmemSlot+8 > lay.BarrierOffset+lay.Barriers || v.BarFull != lay.BarrierOffset {
			t.Errorf("%s: barrier region [%d,%d) overruns tiling's [%d,%d)", c.Name(), v.BarFull, v.TmemSlot+8, lay.BarrierOffset, lay.BarrierOffset+lay.Barriers)
		}
		if v.CLC && (v.ClcResp%16 != 0 || v.ClcResp < v.BarEEmpty+8*c.EpiStages) {
			t.Errorf("%s: CLC response at %d: must be 16-byte aligned after the barriers", c.Name(), v.ClcResp)
		}
		// Swizzled tiles start 1024-byte aligned (descriptor base offset 0).
		for _, off := range []int{v.StageBytes, v.BOff, v.EpiOff, v.EpiSlotBytes, v.EpiGateOff, v.EpiOutOff} {
			if off%1024 != 0 {
				t.Errorf("%s: swizzled tile offset %d is not 1024-byte aligned", c.Name(), off)
			}
		}
		if v.FullTxBytes != c.CTAsPerTile()*lay.OperandStage {
			t.Errorf("%s: full barrier expects %d bytes, want %d (the stage of every CTA of the pair)", c.Name(), v.FullTxBytes, c.CTAsPerTile()*lay.OperandStage)
		}
	}
}

// TestSM100EpilogueWriteMap enumerates, for every epilogue thread, the
// shared-memory bytes it writes in one epilogue slot (with the formula the
// template uses) and checks that no two threads write the same byte, that
// every byte of the slot's buffers is written once (the TMA store sends no
// stale data), and that each thread's row is a TMEM lane its warp may read.
// This is the class of bug where two threads of a gated epilogue wrote one
// smem slot (2-CTA MMA at tile M=128).
func TestSM100EpilogueWriteMap(t *testing.T) {
	t.Parallel()
	for _, c := range sm100Configs() {
		v, err := newSM100View(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		tensors := []int{0, v.EpiGateOff}
		if c.StoreOut {
			tensors = append(tensors, v.EpiOutOff)
		}
		owner := make([]int, v.EpiSlotBytes)
		for i := range owner {
			owner[i] = -1
		}
		bad := 0
		for tid := 32 * v.EpiWarp0; tid < v.Threads; tid++ {
			warp := tid / 32
			row := v.epiThreadRow(tid)
			if lo := 32 * (warp % 4); row < lo || row >= lo+32 || row >= v.RowsPerCTA {
				t.Errorf("%s: thread %d reads TMEM lane %d, outside its warp's lanes [%d,%d) or the %d rows", c.Name(), tid, row, lo, lo+32, v.RowsPerCTA)
			}
			for _, base := range tensors {
				for j := 0; j < v.EpiChunks; j++ {
					off := base + v.epiChunkOffset(row, j)
					for b := off; b < off+16; b++ {
						if b < base || b >= base+v.EpiSubBytes {
							t.Fatalf("%s: thread %d chunk %d writes byte %d outside its buffer [%d,%d)", c.Name(), tid, j, b, base, base+v.EpiSubBytes)
						}
						if owner[b] != -1 && bad < 5 {
							bad++
							t.Errorf("%s: byte %d of the epilogue slot written by threads %d and %d", c.Name(), b, owner[b], tid)
						}
						owner[b] = tid
					}
				}
			}
		}
		for b, o := range owner {
			if o == -1 {
				t.Errorf("%s: byte %d of the epilogue slot is never written", c.Name(), b)
				break
			}
		}
	}
}

// TestSM100TemplateUsesViewFormulas ties the Go write-map formulas above
// to the template text, so the structural test checks what is emitted.
func TestSM100TemplateUsesViewFormulas(t *testing.T) {
	t.Parallel()
	c := tiling.Catalog()
	for _, cfg := range c {
		if cfg.Arch != tiling.ArchSM100a {
			continue
		}
		a, err := Render(cfg)
		if err != nil {
			t.Fatalf("%s: %v", cfg.Name(), err)
		}
		src := string(a.Source)
		for _, want := range []string{
			"const int row = 32 * q + lane;",
			"const int q = warp % 4;",
			"const sw_u32 off = (sw_u32)row * kEpiRowBytes + (((sw_u32)j ^ ((sw_u32)row & kSwizzleMask)) << 4);",
			"static constexpr sw_u32 kEpiRowBytes = 128;",
			"static constexpr sw_u32 kSwizzleMask = 7;",
			"static constexpr int kEpiWarp0 = 4;",
		} {
			if !strings.Contains(src, want) {
				t.Errorf("%s: rendered source lacks %q", cfg.Name(), want)
			}
		}
		return
	}
	t.Fatal("no sm_100a config in the catalog")
}

func TestSM100RenderDeterministicAndManifest(t *testing.T) {
	t.Parallel()
	for _, c := range sm100Configs() {
		a, err := Render(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		b, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Source, b.Source) {
			t.Errorf("%s: two renders differ", c.Name())
		}
		src := string(a.Source)
		if !strings.HasPrefix(src, "// Code generated by swigen. DO NOT EDIT.\n") {
			t.Errorf("%s: missing generated-code header", c.Name())
		}
		if !strings.Contains(src, "extern \"C\" __global__ void __launch_bounds__(256, 1) "+c.Name()+"(") {
			t.Errorf("%s: entry point not found", c.Name())
		}
		if strings.Contains(src, "<no value>") {
			t.Errorf("%s: template printed <no value>", c.Name())
		}
		m := a.Manifest
		want := Manifest{
			Name: c.Name(), Entry: c.Name(), Arch: tiling.ArchSM100a, Config: c, ConfigHash: m.ConfigHash,
			BlockThreads: 256, ClusterDims: [3]int{c.ClusterM * c.ClusterN, 1, 1},
			DynamicSmemBytes: c.SmemBytes(), Params: bwdParams(c),
		}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("%s: manifest (-want +got):\n%s", c.Name(), diff)
		}
	}
}

func TestSM100ViewRejects(t *testing.T) {
	t.Parallel()
	base := tiling.Config{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM100a, DType: tiling.BF16,
		Schedule: tiling.OneCTA, TileM: 128, TileN: 128, TileK: 64, Stages: 4}.WithDefaults()
	if _, err := newSM100View(base); err != nil {
		t.Fatalf("base config: %v", err)
	}
	tests := []struct {
		name string
		mod  func(*tiling.Config)
	}{
		{"tile_m 64 (TMEM layout F)", func(c *tiling.Config) { c.TileM, c.EpiM = 64, 64 }},
		{"epi_n 32", func(c *tiling.Config) { c.EpiN = 32 }},
		{"tile_k 32", func(c *tiling.Config) { c.TileK = 32 }},
		{"major_a mn", func(c *tiling.Config) { c.MajorA = tiling.MNMajor }},
		{"cluster 2x2", func(c *tiling.Config) { c.ClusterM, c.ClusterN = 2, 2 }},
		{"scheduler unknown", func(c *tiling.Config) { c.Scheduler = "dynamic" }},
	}
	for _, tc := range tests {
		c := base
		tc.mod(&c)
		if _, err := newSM100View(c); err == nil {
			t.Errorf("%s: newSM100View accepted %s", tc.name, c.Name())
		}
	}
}

func TestTMABoxes(t *testing.T) {
	t.Parallel()
	mk := func(a tiling.Arch, s tiling.Schedule, m, n int, mb tiling.Major) tiling.Config {
		c := tiling.Config{Kernel: tiling.KernelBwdDSwiGLU, Arch: a, DType: tiling.BF16, Schedule: s,
			TileM: m, TileN: n, TileK: 64, MajorB: mb}
		if s == tiling.TwoCTA {
			c.ClusterM = 2
		}
		return c.WithDefaults()
	}
	tests := []struct {
		name string
		cfg  tiling.Config
		want TMABoxSet
	}{
		{"sm90 pingpong k-major", mk(tiling.ArchSM90a, tiling.PingPong, 128, 128, tiling.KMajor),
			TMABoxSet{A: [3]int{64, 128}, B: [3]int{64, 128}, De: [3]int{64, 1, 64}, Out: [3]int{64, 64}}},
		{"sm90 cooperative mn-major", mk(tiling.ArchSM90a, tiling.Cooperative, 256, 128, tiling.MNMajor),
			TMABoxSet{A: [3]int{64, 256}, B: [3]int{64, 64}, De: [3]int{64, 1, 64}, Out: [3]int{64, 64}}},
		{"sm100 1cta", mk(tiling.ArchSM100a, tiling.OneCTA, 128, 256, tiling.KMajor),
			TMABoxSet{A: [3]int{64, 128}, B: [3]int{64, 256}, De: [3]int{64, 1, 128}, Out: [3]int{64, 128}}},
		{"sm100 2cta", mk(tiling.ArchSM100a, tiling.TwoCTA, 256, 256, tiling.KMajor),
			TMABoxSet{A: [3]int{64, 128}, B: [3]int{64, 128}, De: [3]int{64, 1, 128}, Out: [3]int{64, 128}}},
		{"sm100 2cta mn-major", mk(tiling.ArchSM100a, tiling.TwoCTA, 256, 128, tiling.MNMajor),
			TMABoxSet{A: [3]int{64, 128}, B: [3]int{64, 64}, De: [3]int{64, 1, 128}, Out: [3]int{64, 128}}},
	}
	for _, tc := range tests {
		got, err := TMABoxes(tc.cfg)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := TMABoxes(tiling.Config{Arch: "sm_80"}); err == nil {
		t.Error("TMABoxes(sm_80): want an error")
	}
}

func TestPersistentGrid(t *testing.T) {
	t.Parallel()
	mk := func(s tiling.Schedule, m, n, cm, cn int, sch tiling.Scheduler) tiling.Config {
		return tiling.Config{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM100a, DType: tiling.BF16, Schedule: s,
			TileM: m, TileN: n, TileK: 64, ClusterM: cm, ClusterN: cn, Scheduler: sch}.WithDefaults()
	}
	tests := []struct {
		name       string
		cfg        tiling.Config
		m, i, sms  int
		wantGrid   int
		wantOfUnit int // grid must be a multiple of this
	}{
		{"1cta static many tiles", mk(tiling.OneCTA, 128, 256, 1, 1, tiling.StaticScheduler), 16384, 4608, 148, 148, 1},
		{"1cta static few tiles", mk(tiling.OneCTA, 128, 256, 1, 1, tiling.StaticScheduler), 256, 512, 148, 4, 1},
		{"1cta cluster 2 odd SMs", mk(tiling.OneCTA, 128, 128, 1, 2, tiling.StaticScheduler), 16384, 4608, 133, 132, 2},
		{"1cta cluster 2 one tile", mk(tiling.OneCTA, 128, 128, 2, 1, tiling.StaticScheduler), 100, 100, 148, 2, 2},
		{"2cta static", mk(tiling.TwoCTA, 256, 256, 2, 1, tiling.StaticScheduler), 16384, 4608, 148, 148, 2},
		{"2cta static few tiles", mk(tiling.TwoCTA, 256, 256, 2, 1, tiling.StaticScheduler), 300, 256, 148, 4, 2},
		{"2cta clc", mk(tiling.TwoCTA, 256, 256, 2, 1, tiling.CLCScheduler), 16384, 4608, 148, 2 * 64 * 18, 2},
		{"1cta clc cluster 2 odd tiles", mk(tiling.OneCTA, 128, 128, 1, 2, tiling.CLCScheduler), 384, 128, 148, 4, 2},
	}
	for _, tc := range tests {
		got := PersistentGrid(tc.cfg, tc.m, tc.i, tc.sms)
		if got != tc.wantGrid || got%tc.wantOfUnit != 0 {
			t.Errorf("%s: PersistentGrid = %d, want %d (a multiple of %d)", tc.name, got, tc.wantGrid, tc.wantOfUnit)
		}
	}
	if got := PersistentGrid(mk(tiling.OneCTA, 128, 128, 1, 1, tiling.StaticScheduler), 0, 128, 148); got != 0 {
		t.Errorf("M=0: PersistentGrid = %d, want 0", got)
	}
}
