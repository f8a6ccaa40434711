package gen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// wgradZeroLines are the rendered lines of sw_kg_zero_rows and its call
// that TestGroupedWgradZeroRowsSim replays.
var wgradZeroLines = []string{
	"const int chunks = (kTileK - valid) * 8;  // 16-byte chunks per slab",
	"for (int i = tid; i < (kALoads + kBLoads) * chunks; i += 128) {",
	"const int q = i / chunks, x = i - q * chunks;",
	"const sw_u32 slab = q < kALoads ? kALoadSmem[q] : kBOff + kBLoadSmem[q - kALoads];",
	`asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};" :: "r"(stage + slab + valid * 128 + x * 16), "r"(0) : "memory");`,
	"const int kg_valid = gc.row1 - gc.row0 - (kblocks - 1) * kTileK;",
	"if (kb == kblocks - 1 && kg_valid < kTileK) {",
	"sw_kg_zero_rows(smem + s * kStageBytes, kg_valid, threadIdx.x % 128);",
}

// TestGroupedWgradZeroRowsSim replays moe_wgrad's zeroing of a ragged
// k-block on the host, for every valid token count of the last k-block (in
// the first and the last stage): the 128 threads' 16-byte stores hit exactly the shared-memory
// bytes where TMA's 128B swizzle put the A and B token rows from valid on
// (physical address = logical ^ ((logical >> 7) & 7) << 4, the hardware's
// swizzle on the absolute shared address), each once, and nothing else of
// the stage; rows below valid keep the expert's tokens.
func TestGroupedWgradZeroRowsSim(t *testing.T) {
	t.Parallel()
	for _, name := range append(append([]string(nil), groupedWgradConfigs...),
		"moe_wgrad_sm90a_bf16_m128n128k128_s3_c1x1_pingpong_amn_bmn",
		"moe_wgrad_sm90a_bf16_m64n64k128_s6_c1x1_pingpong_amn_bmn",
		"moe_wgrad_sm90a_fp16_m64n128k256_s2_c1x1_pingpong_amn_bmn",
	) {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := renderCfg(c)
		if err != nil {
			t.Fatalf("%s: Render: %v", name, err)
		}
		src := string(a.Source)
		for _, l := range wgradZeroLines {
			if !strings.Contains(src, l) {
				t.Fatalf("%s: the rendered source lacks %q: the simulation replays it", name, l)
			}
		}
		boxes, err := manifest.BoxesOf(c)
		if err != nil {
			t.Fatal(err)
		}
		tileK, stageBytes, bOff := simConst(t, src, "kTileK"), simConst(t, src, "kStageBytes"), simConst(t, src, "kBOff")
		l := wgradLayout{tileK: tileK, bOff: bOff,
			aSmem: simArray(t, src, "kALoadSmem", "kALoads"), bSmem: simArray(t, src, "kBLoadSmem", "kBLoads")}
		for _, k := range append(simArray(t, src, "kALoadK", "kALoads"), simArray(t, src, "kBLoadK", "kBLoads")...) {
			if k != 0 {
				t.Fatalf("%s: a load starts at k offset %d: the zeroing takes each load as a slab of all kTileK token rows", name, k)
			}
		}
		for _, b := range [][3]int{boxes.A, boxes.B} {
			if b[0] != 64 || b[1] != tileK {
				t.Fatalf("%s: box %v: the zeroing takes {64 (128 bytes), kTileK=%d token rows}", name, b, tileK)
			}
		}
		// The swizzle reads address bits 4-9 only, so a stage at a multiple
		// of 1024 bytes is laid out as the first: the first and the last
		// stage stand for all.
		if stageBytes%1024 != 0 {
			t.Fatalf("%s: kStageBytes=%d is not a multiple of 1024 (the 128B swizzle's repeat)", name, stageBytes)
		}
		for _, s := range []int{0, c.Stages - 1} {
			for valid := 1; valid < tileK; valid++ {
				if err := l.check(s*stageBytes, stageBytes, valid); err != nil {
					t.Fatalf("%s stage %d valid %d: %v", name, s, valid, err)
				}
			}
		}
	}
}

// wgradLayout is one operand stage of moe_wgrad as the rendered constants
// lay it out: slabs of tileK token rows of 128 bytes, A's at aSmem, B's at
// bOff + bSmem.
type wgradLayout struct {
	tileK, bOff  int
	aSmem, bSmem []int
}

// swizzle128 is the 128B swizzle TMA applies to a shared address (the
// 16-byte chunk inside a 128-byte line XOR the line's index mod 8).
func swizzle128(addr int) int { return addr ^ ((addr>>7)&7)<<4 }

// check compares the 16-byte chunks sw_kg_zero_rows stores for valid rows
// with the physical chunks of the token rows from valid on in the stage at
// base (1024-aligned: the kernel aligns shared memory to 1024 bytes). The
// swizzle moves whole 16-byte chunks, so chunks are the unit.
func (l wgradLayout) check(base, stageBytes, valid int) error {
	slabs := append(append([]int(nil), l.aSmem...), l.bSmem...)
	for i := len(l.aSmem); i < len(slabs); i++ {
		slabs[i] += l.bOff
	}
	want := make([]bool, stageBytes/16)
	for _, slab := range slabs {
		for r := valid; r < l.tileK; r++ {
			for ch := 0; ch < 8; ch++ {
				want[(swizzle128(base+slab+r*128+ch*16)-base)/16] = true
			}
		}
	}
	got := make([]bool, stageBytes/16)
	chunks := (l.tileK - valid) * 8
	for tid := 0; tid < 128; tid++ {
		for i := tid; i < len(slabs)*chunks; i += 128 {
			q, x := i/chunks, i%chunks
			addr := base + slabs[q] + valid*128 + x*16
			if addr%16 != 0 || addr < base || addr+16 > base+stageBytes || got[(addr-base)/16] {
				return fmt.Errorf("thread %d stores 16 bytes at %d: unaligned, outside the stage [%d,%d) or twice", tid, addr, base, base+stageBytes)
			}
			got[(addr-base)/16] = true
		}
	}
	for i := range want {
		if want[i] && !got[i] {
			return fmt.Errorf("bytes %d.. hold a token row from %d on after the zeroing", base+16*i, valid)
		}
		if got[i] && !want[i] {
			return fmt.Errorf("bytes %d.. are zeroed but hold no token row from %d on", base+16*i, valid)
		}
	}
	return nil
}

// simArray reads a constant array name[count] off a rendered source.
func simArray(t *testing.T, src, name, count string) []int {
	t.Helper()
	m := regexp.MustCompile(`constexpr \w+ ` + name + `\[` + count + `\] = \{([^}]*)\};`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no %s in the rendered source", name)
	}
	var out []int
	for _, f := range strings.Split(m[1], ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	if n := simConst(t, src, count); n != len(out) {
		t.Fatalf("%s has %d entries, %s = %d", name, len(out), count, n)
	}
	return out
}

// wgradRingLines are the rendered lines of the K-grouped walk's producer
// and consumer loops that TestGroupedWgradRingSim replays.
var wgradRingLines = []string{
	"for (int t = unit0; t < kg_tiles; t += num_ctas) {",
	"for (int kb = 0; kb < kblocks; ++kb, ++it) {",
	"for (int t = unit0 + j * num_ctas; t < kg_tiles; j += kTileStep, t = unit0 + j * num_ctas, ++turn) {",
	"for (; jr < j; ++jr) {",
	"sw_kg_seek(gc, goffs, K, (unit0 + jr * num_ctas) / tiles_e);",
	"ring += (sw_u32)sw_kg_kblocks(gc);",
	"sw_u32 it = ring;",
	"g.row1 = end < g.row0 ? g.row0 : (end > T ? T : end);",
	"SW_DEV int sw_kg_kblocks(const sw_kg_cursor& g) { return (g.row1 - g.row0 + kTileK - 1) / kTileK; }",
}

// TestGroupedWgradRingSim replays the K-grouped walk's ring positions on
// the host: for every CTA, the ring position each consumer computes for
// each k-block of its tiles (the k-blocks of every earlier local tile,
// the other consumer's too, empty experts adding none) is the producer's
// for the same k-block, the consumers together take every k-block the
// producer loads once, and a tile's k-blocks start at its expert's first
// token, over routings with empty, one-token and TileK±1 experts, clamped
// bad offs, and grids from 1 CTA to more CTAs than tiles.
func TestGroupedWgradRingSim(t *testing.T) {
	t.Parallel()
	c, err := tiling.ParseName(groupedWgradConfigs[0])
	if err != nil {
		t.Fatal(err)
	}
	a, err := renderCfg(c)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	src := string(a.Source)
	for _, l := range wgradRingLines {
		if !strings.Contains(src, l) {
			t.Fatalf("the rendered source lacks %q: the simulation replays it", l)
		}
	}
	tileK, start, step := simConst(t, src, "kTileK"), simConst(t, src, "kTileStart"), simConst(t, src, "kTileStep")
	offsets := [][]int{{0, 0, 1, 1, 65, 65, 130, 300}, {64, 127, 128, 129, 129, 400}, {0, 0, 0, 0}, {5}, {200, 100, 150, 900, 260}}
	for _, offs := range offsets {
		T := 260
		for _, tilesE := range []int{1, 2, 3, 5} {
			for _, ctas := range []int{1, 2, 3, 7, 64} {
				if err := wgradRingSim(offs, T, tilesE, ctas, tileK, start, step); err != nil {
					t.Fatalf("offs %v T=%d tiles per expert %d ctas %d: %v", offs, T, tilesE, ctas, err)
				}
			}
		}
	}
}

// wgradKBlocks is each expert's (first token, k-blocks) as sw_kg_seek and
// sw_kg_kblocks give them from offs clamped into [row0, T].
func wgradKBlocks(offs []int, T, tileK int) (first, kblocks []int) {
	row1 := 0
	for _, end := range offs {
		row0 := row1
		row1 = min(max(end, row0), T)
		first, kblocks = append(first, row0), append(kblocks, (row1-row0+tileK-1)/tileK)
	}
	return first, kblocks
}

func wgradRingSim(offs []int, T, tilesE, ctas, tileK, start, step int) error {
	first, kbs := wgradKBlocks(offs, T, tileK)
	tiles := len(offs) * tilesE
	for u := 0; u < ctas; u++ {
		// The producer: ring position -> (tile, k-block, first token).
		type load struct{ t, kb, k int }
		var ring []load
		for t := u; t < tiles; t += ctas {
			e := t / tilesE
			for kb := 0; kb < kbs[e]; kb++ {
				ring = append(ring, load{t, kb, kb*tileK + first[e]})
			}
		}
		taken := make([]int, len(ring))
		for cons := 0; cons < 2; cons++ {
			pos, jr := 0, 0
			for j := cons * start; u+j*ctas < tiles; j += step {
				for ; jr < j; jr++ {
					pos += kbs[(u+jr*ctas)/tilesE]
				}
				t := u + j*ctas
				e := t / tilesE
				for kb := 0; kb < kbs[e]; kb++ {
					it := pos + kb
					if it >= len(ring) || ring[it].t != t || ring[it].kb != kb {
						return fmt.Errorf("CTA %d consumer %d tile %d k-block %d waits on ring position %d, which the producer fills with %+v", u, cons, t, kb, it, ring[min(it, len(ring)-1)])
					}
					if ring[it].k != first[e]+kb*tileK {
						return fmt.Errorf("CTA %d tile %d k-block %d loads token %d, want %d", u, t, kb, ring[it].k, first[e]+kb*tileK)
					}
					taken[it]++
				}
			}
		}
		for it, n := range taken {
			if n != 1 {
				return fmt.Errorf("CTA %d ring position %d (%+v) taken by %d consumers", u, it, ring[it], n)
			}
		}
	}
	return nil
}
