package view

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// ints parses a view's comma-separated constant array.
func ints(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("constant array %q: %v", s, err)
		}
		out = append(out, n)
	}
	return out
}

// TestSM100ConfigsCoverKinds: the structural tests below see every kind
// and each of its paths.
func TestSM100ConfigsCoverKinds(t *testing.T) {
	t.Parallel()
	has := map[string]bool{}
	for _, c := range tilingtest.SM100() {
		k := string(c.Kernel) + "/" + string(c.Schedule)
		has[k] = true
		has[k+"/a"+string(c.MajorA)] = true
		has[k+"/b"+string(c.MajorB)] = true
		if c.StoreOut {
			has[k+"/out"] = true
		}
		if c.Residual {
			has[k+"/res"] = true
		}
		if c.Scheduler == tiling.CLCScheduler {
			has[k+"/clc"] = true
		}
	}
	for _, k := range tiling.Kernels() {
		for _, s := range []tiling.Schedule{tiling.OneCTA, tiling.TwoCTA} {
			p := string(k) + "/" + string(s)
			want := []string{p, p + "/ak", p + "/bk", p + "/bmn", p + "/clc"}
			switch k {
			case tiling.KernelGEMM:
				want = append(want, p+"/amn")
			case tiling.KernelBwdDSwiGLU, tiling.KernelFwdGateUp:
				want = append(want, p+"/out")
			case tiling.KernelFwdDown:
				want = append(want, p+"/res")
			}
			for _, w := range want {
				if !has[w] {
					t.Errorf("sm100Configs has no %s config", w)
				}
			}
		}
	}
}

// TestSM100Layout checks what the view builds on tiling's layout: the
// TMEM allocation, an epilogue ring of Stages slots that fills tiling's
// epilogue region, every swizzled tile 1024-byte aligned (descriptor base
// offset 0), and the pair's bytes on the leader's full barrier.
func TestSM100Layout(t *testing.T) {
	t.Parallel()
	cfgs := tilingtest.SM100()
	if len(cfgs) == 0 {
		t.Fatal("no sm_100a configs in the space or catalog")
	}
	for _, c := range cfgs {
		v, err := newSM100(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		lay := v.Smem
		if cols := v.TMEM.Cols; cols > 512 || cols < 32 || cols&(cols-1) != 0 || cols < 2*c.TileN || cols != c.TMEMColumns() {
			t.Errorf("%s: %d TMEM columns: want a power of two in [max(32, 2*%d), 512] equal to tiling's %d", c.Name(), cols, c.TileN, c.TMEMColumns())
		}
		if ring := v.Epi.Stages * v.Epi.SlotBytes; ring != lay.Epilogue {
			t.Errorf("%s: epilogue ring of %d bytes in tiling's %d-byte region", c.Name(), ring, lay.Epilogue)
		}
		for _, off := range []int{lay.OperandStage, lay.OperandB, lay.EpilogueOff, v.Epi.SlotBytes, v.Epi.GateOff, v.Epi.OutOff, v.Epi.LeftOff} {
			if off%1024 != 0 {
				t.Errorf("%s: swizzled tile offset %d is not 1024-byte aligned", c.Name(), off)
			}
		}
		if v.Ring.TxBytes != c.CTAsPerTile()*lay.OperandStage {
			t.Errorf("%s: full barrier expects %d bytes, want %d (the stage of every CTA of the pair)", c.Name(), v.Ring.TxBytes, c.CTAsPerTile()*lay.OperandStage)
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
	for _, c := range tilingtest.SM100() {
		v, err := newSM100(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		tensors := epiBuffers(v)
		if len(tensors)*v.Smem.EpilogueSlot != v.Epi.SlotBytes {
			t.Errorf("%s: %d epilogue buffers of %d bytes in a %d-byte slot", c.Name(), len(tensors), v.Smem.EpilogueSlot, v.Epi.SlotBytes)
		}
		owner := make([]int, v.Epi.SlotBytes)
		for i := range owner {
			owner[i] = -1
		}
		bad := 0
		for tid := 32 * v.Epi.Warp0; tid < v.Sched.Threads; tid++ {
			warp := tid / 32
			row := epiThreadRow(tid)
			if lo := 32 * (warp % 4); row < lo || row >= lo+32 || row >= v.Pair.RowsPerCTA {
				t.Errorf("%s: thread %d reads TMEM lane %d, outside its warp's lanes [%d,%d) or the %d rows", c.Name(), tid, row, lo, lo+32, v.Pair.RowsPerCTA)
			}
			for _, base := range tensors {
				for j := 0; j < v.Epi.Chunks; j++ {
					off := base + v.Epi.epiChunkOffset(row, j)
					for b := off; b < off+16; b++ {
						if b < base || b >= base+v.Smem.EpilogueSlot {
							t.Fatalf("%s: thread %d chunk %d writes byte %d outside its buffer [%d,%d)", c.Name(), tid, j, b, base, base+v.Smem.EpilogueSlot)
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

// TestSM100AccumulatorColumns: the epilogue's TMEM reads (v at nb*EpiN,
// fwd_gateup's gate at TileNOut + nb*EpiN, as in the template) cover each
// accumulator column of the tile exactly once, inside its TileN-column
// buffer; left column j and gate column j of one output column pair up.
func TestSM100AccumulatorColumns(t *testing.T) {
	t.Parallel()
	for _, c := range tilingtest.SM100() {
		v, err := newSM100(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		seen := make([]int, v.Tile.N)
		read := func(col int) {
			if col < 0 || col >= v.Tile.N {
				t.Fatalf("%s: TMEM column %d outside the %d-column accumulator", c.Name(), col, v.Tile.N)
			}
			seen[col]++
		}
		for nb := 0; nb < v.Tile.NB; nb++ {
			for j := 0; j < v.Epi.N; j++ {
				read(nb*v.Epi.N + j)
				if v.Kind.GateUp {
					read(v.Tile.NOut + nb*v.Epi.N + j)
				}
			}
		}
		for col, n := range seen {
			if n != 1 {
				t.Errorf("%s: accumulator column %d read %d times", c.Name(), col, n)
				break
			}
		}
		if want := v.Tile.N / (1 + btoi(v.Kind.GateUp)); v.Tile.NOut != want || 2*v.Tile.N > v.TMEM.Cols {
			t.Errorf("%s: output tile %d columns (want %d), 2 buffers of %d in %d TMEM columns", c.Name(), v.Tile.NOut, want, v.Tile.N, v.TMEM.Cols)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSM100OperandRingMap simulates the TMA loads of one stage as the view
// lays them out (the template issues exactly these: kALoads, kBLoads) and
// checks that A and B of the CTA are written whole, once, in their
// regions, that the full barrier expects what lands, and that the smem
// rows the MMA reads as N columns hold the right rows of B: for
// fwd_gateup, accumulator column j < TileN/2 is left row n+j of W and
// TileN/2+j the gate row I+n+j, in one CTA or split over the pair.
func TestSM100OperandRingMap(t *testing.T) {
	t.Parallel()
	const I = 1 << 20 // a symbolic hidden size: gate rows are I past the left ones
	for _, c := range tilingtest.SM100() {
		v, err := newSM100(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		boxes, err := manifest.BoxesOf(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		owner := make([]int, v.Smem.OperandStage)
		write := func(what string, off, n, id int) {
			for b := off; b < off+n; b++ {
				if b < 0 || b >= v.Smem.OperandStage {
					t.Fatalf("%s: %s load %d writes byte %d outside the %d-byte stage", c.Name(), what, id, b, v.Smem.OperandStage)
				}
				if owner[b] != 0 {
					t.Fatalf("%s: stage byte %d written by loads %d and %d", c.Name(), b, owner[b], id)
				}
				owner[b] = id
			}
		}
		boxBytes := func(b [3]int) int { return b[0] * b[1] * v.Elem.Bytes }
		aSmem := ints(t, v.A.Smem)
		for i, off := range aSmem {
			write("A", off, boxBytes(boxes.A), 1+i)
		}
		bSmem := ints(t, v.B.Smem)
		for i, off := range bSmem {
			write("B", v.Smem.OperandB+off, boxBytes(boxes.B), 1000+i)
		}
		for b, o := range owner {
			if o == 0 {
				t.Errorf("%s: stage byte %d never loaded", c.Name(), b)
				break
			}
			if (b < v.Smem.OperandB) != (o < 1000) {
				t.Errorf("%s: stage byte %d (B at %d) written by the wrong operand's load %d", c.Name(), b, v.Smem.OperandB, o)
				break
			}
		}
		if got := v.Pair.CTAsPerTile * (len(aSmem)*boxBytes(boxes.A) + len(bSmem)*boxBytes(boxes.B)); got != v.Ring.TxBytes {
			t.Errorf("%s: loads of the tile's CTAs bring %d bytes, the full barrier expects %d", c.Name(), got, v.Ring.TxBytes)
		}

		// B column map: MMA column col is smem B row col%TileNPerCTA of
		// CTA col/TileNPerCTA. Rebuild which row of B (W) each smem row
		// holds from the load coordinates, for n0 = 0 (the template adds
		// rank*RankNOff and kBLoadHalf[i]*I).
		bK, bN := ints(t, v.B.K), ints(t, v.B.MN)
		half := make([]int, len(bK))
		if v.B.Halves {
			half = ints(t, v.B.Half)
		}
		rankOff := v.Pair.NPerCTA
		if v.Pair.RankNOff == v.Kind.NName {
			rankOff = I
		} else if v.Pair.RankNOff != "kTileNPerCTA" {
			t.Fatalf("%s: RankNOff %q", c.Name(), v.Pair.RankNOff)
		}
		for col := 0; col < v.Tile.N; col++ {
			r, row := col/v.Pair.NPerCTA, col%v.Pair.NPerCTA
			got := -1
			for i := range bK {
				n := r*rankOff + half[i]*I + bN[i]
				switch c.MajorB {
				case tiling.KMajor:
					// Box {64, rows} at smem offset: rows of 128 bytes, the
					// k offset selects the swizzle atom.
					first := (bSmem[i] - (bK[i]/64)*v.Pair.NPerCTA*swizzleAtomBytes) / swizzleAtomBytes
					if bK[i] == 0 && row >= first && row < first+boxes.B[1] {
						got = n + row - first
					}
				case tiling.MNMajor:
					// Box {64, TileK}: one 64-column slab of TileK k-rows.
					slab := bSmem[i] / (c.TileK * swizzleAtomBytes)
					if row/64 == slab {
						got = n + row%64
					}
				}
			}
			want := col
			if v.Kind.GateUp && col >= v.Tile.NOut {
				want = I + col - v.Tile.NOut
			}
			if got != want {
				t.Errorf("%s: MMA column %d reads B row %d, want %d", c.Name(), col, got, want)
				break
			}
		}
		// A: MN-major slabs hold rows 64q.. of the CTA's 128.
		if v.A.MNMajor {
			if d := cmp.Diff([]int{0, 64}, ints(t, v.A.MN)); d != "" {
				t.Errorf("%s: A slab rows (-want +got):\n%s", c.Name(), d)
			}
		}
	}
}

// TestSM100KindValues pins worked values of each kind's view: the
// descriptors (MN-major A needs the transpose-A bit, ptx.md §B3; LBO the
// slab stride, §B4), the B loads of fwd_gateup's two halves, and the CLC
// consumer count (warp 2 reads the responses only when it loads epilogue
// operands).
func TestSM100KindValues(t *testing.T) {
	t.Parallel()
	mk := func(k tiling.Kernel, s tiling.Schedule, n int, ma, mb tiling.Major, f func(*tiling.Config)) tiling.Config {
		c := tiling.Config{Kernel: k, Arch: tiling.ArchSM100a, DType: tiling.BF16, Schedule: s, TileM: 128, TileN: n, TileK: 64,
			MajorA: ma, MajorB: mb}
		if s == tiling.TwoCTA {
			c.TileM, c.ClusterM = 256, 2
		}
		if f != nil {
			f(&c)
		}
		c = c.WithDefaults()
		c.Stages = c.MaxStages()
		return c
	}
	type vals struct {
		IDesc, DescA, DescB         string
		AK16, BK16                  string
		ALoadSmem, BLoadSmem        string
		BLoadN, BLoadHalf, RankNOff string
		TileNOut, NB                int
		ClcEmptyArrivals            int
		EpiSlotBytes, EpiTxBytes    int
	}
	clc := func(c *tiling.Config) { c.Scheduler = tiling.CLCScheduler }
	tests := []struct {
		name string
		cfg  tiling.Config
		want vals
	}{
		{"gemm 1cta k/k", mk(tiling.KernelGEMM, tiling.OneCTA, 256, tiling.KMajor, tiling.KMajor, nil), vals{
			IDesc: "0x08400490", DescA: "0x4000404000010000", DescB: "0x4000404000010000",
			AK16: "0, 32, 64, 96", BK16: "0, 32, 64, 96", ALoadSmem: "0", BLoadSmem: "0", BLoadN: "0", RankNOff: "kTileNPerCTA",
			TileNOut: 256, NB: 4, EpiSlotBytes: 16384}},
		{"gemm 2cta mn/mn clc", mk(tiling.KernelGEMM, tiling.TwoCTA, 256, tiling.MNMajor, tiling.MNMajor, clc), vals{
			IDesc: "0x10418490", DescA: "0x4000404002000000", DescB: "0x4000404002000000",
			AK16: "0, 2048, 4096, 6144", BK16: "0, 2048, 4096, 6144", ALoadSmem: "0, 8192", BLoadSmem: "0, 8192", BLoadN: "0, 64",
			RankNOff: "kTileNPerCTA", TileNOut: 256, NB: 4,
			ClcEmptyArrivals: 2*(2+128) + 1, EpiSlotBytes: 16384}},
		{"gateup 1cta k out", mk(tiling.KernelFwdGateUp, tiling.OneCTA, 256, tiling.KMajor, tiling.KMajor, func(c *tiling.Config) { c.StoreOut = true }), vals{
			IDesc: "0x08400490", DescA: "0x4000404000010000", DescB: "0x4000404000010000",
			AK16: "0, 32, 64, 96", BK16: "0, 32, 64, 96", ALoadSmem: "0", BLoadSmem: "0, 16384", BLoadN: "0, 0", BLoadHalf: "0, 1",
			RankNOff: "I", TileNOut: 128, NB: 2, EpiSlotBytes: 3 * 16384}},
		{"gateup 1cta mn", mk(tiling.KernelFwdGateUp, tiling.OneCTA, 256, tiling.KMajor, tiling.MNMajor, nil), vals{
			IDesc: "0x08410490", DescA: "0x4000404000010000", DescB: "0x4000404002000000",
			AK16: "0, 32, 64, 96", BK16: "0, 2048, 4096, 6144", ALoadSmem: "0", BLoadSmem: "0, 8192, 16384, 24576",
			BLoadN: "0, 64, 0, 64", BLoadHalf: "0, 0, 1, 1", RankNOff: "I",
			TileNOut: 128, NB: 2, EpiSlotBytes: 16384}},
		{"gateup 2cta k", mk(tiling.KernelFwdGateUp, tiling.TwoCTA, 256, tiling.KMajor, tiling.KMajor, nil), vals{
			IDesc: "0x10400490", DescA: "0x4000404000010000", DescB: "0x4000404000010000",
			AK16: "0, 32, 64, 96", BK16: "0, 32, 64, 96", ALoadSmem: "0", BLoadSmem: "0", BLoadN: "0", BLoadHalf: "0", RankNOff: "I",
			TileNOut: 128, NB: 2, EpiSlotBytes: 16384}},
		{"down 1cta residual clc", mk(tiling.KernelFwdDown, tiling.OneCTA, 128, tiling.KMajor, tiling.MNMajor, func(c *tiling.Config) {
			c.Residual, c.ClusterN, c.Scheduler = true, 2, tiling.CLCScheduler
		}), vals{
			IDesc: "0x08210490", DescA: "0x4000404000010000", DescB: "0x4000404002000000",
			AK16: "0, 32, 64, 96", BK16: "0, 2048, 4096, 6144", ALoadSmem: "0", BLoadSmem: "0, 8192", BLoadN: "0, 64",
			RankNOff: "kTileNPerCTA", TileNOut: 128, NB: 2,
			ClcEmptyArrivals: 2*(3+128) + 2, EpiSlotBytes: 16384, EpiTxBytes: 16384}},
	}
	for _, tc := range tests {
		v, err := newSM100(tc.cfg)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := vals{
			IDesc: v.IDesc, DescA: v.A.Desc, DescB: v.B.Desc, AK16: v.A.K16, BK16: v.B.K16,
			ALoadSmem: v.A.Smem, BLoadSmem: v.B.Smem, BLoadN: v.B.MN, BLoadHalf: v.B.Half, RankNOff: v.Pair.RankNOff,
			TileNOut: v.Tile.NOut, NB: v.Tile.NB, EpiSlotBytes: v.Epi.SlotBytes, EpiTxBytes: v.Epi.TxBytes,
		}
		if v.Sched.CLC {
			got.ClcEmptyArrivals = v.Sched.CLCEmptyArrivals
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (%s): (-want +got):\n%s", tc.name, tc.cfg.Name(), d)
		}
	}
}

// epiBuffers are the offsets, inside one epilogue slot, of the EpiM x EpiN
// buffers the epilogue writes (each is TMA-stored), as the templates store
// them: what the write-map test checks.
func epiBuffers(v *SM100) []int {
	e := v.Epi
	switch {
	case v.Kind.Bwd:
		if e.StoreOut {
			return []int{0, e.GateOff, e.OutOff}
		}
		return []int{0, e.GateOff}
	case v.Kind.GateUp:
		if e.StoreOut {
			return []int{e.OutOff, e.LeftOff, e.GateOff}
		}
		return []int{e.OutOff}
	}
	return []int{0}
}
