package gen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// gemmSimLines are the rendered moe_gemm epilogue lines whose bounds
// TestGroupedGemmStoreSim replays.
var gemmSimLines = []string{
	"const int r0 = row0 + c * kConsumerRows, n0 = tn * kTileN;",
	"const int rr = r0 + mb * 64, cc = n0 + kSubCol[nb];",
	"if (rr >= row_end || cc >= N) continue;",
	"if (rr + 64 <= row_end) {",
	"sw_tma_store_2d(&tmap_c, slot, cc, rr);",
	"sw_gr_store_rows_cols(c_ptr, slot, rr, row_end, cc, N, cc, N, tid);",
	"if (rr + r >= row_end || cc + 8 * ch >= col_end) continue;",
}

// TestGroupedGemmStoreSim replays moe_gemm's epilogue stores on the host
// over ragged routings (empty and one-row experts, sizes around tile M),
// ragged N and several grids, both B majors and both schedules: C's every
// element of T x N is stored exactly once, a TMA-stored sub-tile (64 rows,
// its columns clipped at N by the map) lies inside its expert's rows, and
// a row-stored one writes only its expert's rows and columns below N (in
// 8-column chunks: N is a multiple of 8 by the pitch rule).
func TestGroupedGemmStoreSim(t *testing.T) {
	t.Parallel()
	routings := [][]int{{0, 37, 0, 0, 256, 5, 0, 90}, {1, 1, 1, 1, 1, 1}, {0, 0, 0, 333, 0}, {127, 128, 129, 255, 256, 257}, {10, 130, 0}, {64, 63, 65}}
	for _, name := range []string{
		"moe_gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong",
		"moe_gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn",
		"moe_gemm_sm90a_bf16_m128n128k64_s4_c1x1_cooperative",
		"moe_gemm_sm90a_fp16_m64n128k64_s4_c1x1_pingpong_bmn",
	} {
		src := renderSource(t, name)
		for _, l := range append(append([]string(nil), scoreSimLines[:4]...), gemmSimLines...) {
			if !strings.Contains(src, l) {
				t.Fatalf("%s: the rendered source lacks %q: the simulation replays it", name, l)
			}
		}
		tileM, tileN, mbs := simConst(t, src, "kTileM"), simConst(t, src, "kTileN"), simConst(t, src, "kMB")
		crows, start, step := simConst(t, src, "kConsumerRows"), simConst(t, src, "kTileStart"), simConst(t, src, "kTileStep")
		sub := subCols(t, src)
		for _, counts := range routings {
			offs, T := make([]int, len(counts)), 0
			for e, n := range counts {
				T += n
				offs[e] = T
			}
			for _, N := range []int{tileN, 200, 136, 64, 3*tileN + 8} {
				for _, ctas := range []int{1, 3, 132} {
					if err := gemmStoreSim(offs, T, N, ctas, tileM, tileN, mbs, crows, start, step, sub); err != nil {
						t.Fatalf("%s counts %v N=%d ctas=%d: %v", name, counts, N, ctas, err)
					}
				}
			}
		}
	}
}

// subCols reads kSubCol's values off a rendered source.
func subCols(t *testing.T, src string) []int {
	t.Helper()
	m := regexp.MustCompile(`static __device__ constexpr int kSubCol\[kNB\] = \{([^}]*)\};`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("no kSubCol in the rendered source")
	}
	var out []int
	for _, f := range strings.Split(m[1], ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("kSubCol %q: %v", m[1], err)
		}
		out = append(out, v)
	}
	return out
}

// gemmStoreSim runs every CTA's consumers over their tiles and counts the
// stores of each element of C.
func gemmStoreSim(offs []int, T, N, ctas, tileM, tileN, mbs, crows, start, step int, sub []int) error {
	tilesN := (N + tileN - 1) / tileN
	stores := make([]int, T*N)
	for u := range ctas {
		for c := range 2 {
			for _, tl := range scoreSimWalk(offs, T, tilesN, tileM, start, step, u, ctas, c) {
				r0, n0 := tl.row0+c*crows, tl.tn*tileN
				for mb := range mbs {
					for _, sc := range sub {
						rr, cc := r0+mb*64, n0+sc
						if rr >= tl.end || cc >= N {
							continue
						}
						tma := rr+64 <= tl.end
						for r := rr; r < rr+64; r++ {
							for ch := range 8 {
								col := cc + 8*ch
								// The TMA map clips columns at N, never rows; the row
								// store skips rows from the expert's end and columns
								// from N.
								if col >= N || !tma && r >= tl.end {
									continue
								}
								if r < tl.first || r >= tl.end {
									return fmt.Errorf("store of row %d (sub-tile rows [%d,%d), TMA %v) outside expert rows [%d,%d)", r, rr, rr+64, tma, tl.first, tl.end)
								}
								for k := col; k < col+8; k++ {
									stores[r*N+k]++
								}
							}
						}
					}
				}
			}
		}
	}
	for i, n := range stores {
		if n != 1 {
			return fmt.Errorf("C[%d, %d] stored %d times, want 1", i/N, i%N, n)
		}
	}
	return nil
}
