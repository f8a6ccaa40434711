package gen

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// scoreSimConfigs are the router-score configs whose index math
// TestGroupedScoreIndexSim replays: ping-pong (a consumer owns whole
// tiles) and cooperative (consumer c owns rows c*64..), tile M 128 and 64.
var scoreSimConfigs = []string{
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_cooperative_bmn_score",
	"moe_bwd_dswiglu_sm90a_fp16_m64n128k64_s4_c1x1_pingpong_bmn_out_score_tanh",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_score",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_cooperative_out_score",
	"moe_fwd_gateup_sm90a_fp16_m64n128k64_s5_c1x1_pingpong_out_score",
}

// scoreSimLines are the rendered lines whose arithmetic the simulation
// replays (a change to any of them must change the simulation too).
var scoreSimLines = []string{
	"g.row1 = end < g.row0 ? g.row0 : (end > T ? T : end);",
	"g.mb1 += (g.row1 - g.row0 + kTileM - 1) / kTileM;",
	"for (int t = unit0 + j * num_ctas; sw_gr_tile(gc, goffs, E, M, tiles_n, t, tm, tn); j += kTileStep, t = unit0 + j * num_ctas, ++turn) {",
	"const int row0 = gc.row0 + tm * kTileM, row_end = gc.row1;",
	"const int r0 = row0 + c * kConsumerRows, n0 = tn * kTileN;",
	"const int sr = r0 + mb * 64 + 16 * wl + lane / 4;",
	"const float sc[2] = {sw_gr_score(score_ptr, sr, row_end), sw_gr_score(score_ptr, sr + 8, row_end)};",
	"if (r < row_end) asm volatile(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(s) : \"l\"(reinterpret_cast<const float*>(score) + r));",
}

// scoreSimBwdLines are the backward's partial-store lines it replays.
var scoreSimBwdLines = []string{
	"const int rr = r0 + mb * 64, cc = n0 + nb * 64;",
	"if (rr >= row_end || cc >= I) continue;",
	"if (lane % 4 == 0 && sr + 8 * h < row_end) {",
	"((sw_u64)(sr + 8 * h) * (sw_u64)tiles_n + (sw_u64)tn)",
}

// simConst reads an int constant `static constexpr int name = v;`.
func simConst(t *testing.T, src, name string) int {
	t.Helper()
	v, err := strconv.Atoi(skConst(t, src, name))
	if err != nil {
		t.Fatalf("constant %s: %v", name, err)
	}
	return v
}

// scoreSimTile is one tile a consumer runs: its expert's rows
// [first, end), its rows from row0, its n-block.
type scoreSimTile struct{ first, end, row0, tn int }

// scoreSimWalk is consumer c of CTA u's tiles (sw_gr_tile's cursor over
// offs, clamped as the kernel clamps it).
func scoreSimWalk(offs []int, T, tilesN, tileM, start, step, u, ctas, c int) []scoreSimTile {
	var out []scoreSimTile
	e, row0, row1, mb0, mb1 := -1, 0, 0, 0, 0
	for j := c * start; ; j += step {
		t := u + j*ctas
		gm := t / tilesN
		for gm >= mb1 {
			if e+1 >= len(offs) {
				return out
			}
			e++
			row0 = row1
			row1 = min(max(offs[e], row0), T)
			mb0 = mb1
			mb1 += (row1 - row0 + tileM - 1) / tileM
		}
		tm, tn := gm-mb0, t-gm*tilesN
		out = append(out, scoreSimTile{first: row0, end: row1, row0: row0 + tm*tileM, tn: tn})
	}
}

// TestGroupedScoreIndexSim replays the rendered score epilogues' index
// math on the host over ragged routings (empty experts, one-row experts,
// rows past T in the last tile), ragged I and several grids: every score
// load reads a row of the tile's own expert (so inside [0, T)); the
// backward writes dscore_part[row, tn] exactly once for every row and
// n-block, never for a row outside the tile's expert, and each partial
// sums the n-block's columns below I exactly once.
func TestGroupedScoreIndexSim(t *testing.T) {
	t.Parallel()
	routings := [][]int{{0, 37, 0, 0, 256, 5, 0, 90}, {1, 1, 1, 1, 1, 1}, {0, 0, 0, 333, 0}, {127, 128, 129, 255, 256, 257}, {10, 130, 0}, {64, 63, 65}}
	for _, name := range scoreSimConfigs {
		src := renderSource(t, name)
		bwd := strings.HasPrefix(name, "moe_bwd_")
		lines := scoreSimLines
		if bwd {
			lines = append(append([]string(nil), lines...), scoreSimBwdLines...)
		}
		for _, l := range lines {
			if !strings.Contains(src, l) {
				t.Fatalf("%s: the rendered source lacks %q: the simulation replays it", name, l)
			}
		}
		tileM, tileN, mbs := simConst(t, src, "kTileM"), simConst(t, src, "kTileN"), simConst(t, src, "kMB")
		crows, start, step := simConst(t, src, "kConsumerRows"), simConst(t, src, "kTileStart"), simConst(t, src, "kTileStep")
		nb := simConst(t, src, "kNB")
		for _, counts := range routings {
			offs, T := make([]int, len(counts)), 0
			for e, n := range counts {
				T += n
				offs[e] = T
			}
			for _, I := range []int{tileN, 200, 136, 3*tileN + 8} {
				for _, ctas := range []int{1, 3, 132} {
					where := fmt.Sprintf("%s counts %v I=%d ctas=%d", name, counts, I, ctas)
					if err := scoreSim(offs, T, I, ctas, tileM, tileN, mbs, crows, start, step, nb, bwd); err != nil {
						t.Fatalf("%s: %v", where, err)
					}
				}
			}
		}
	}
}

// scoreSim runs every CTA's consumers over their tiles and checks the
// score loads and, for the backward, the partial stores and their columns.
func scoreSim(offs []int, T, I, ctas, tileM, tileN, mbs, crows, start, step, nbs int, bwd bool) error {
	tilesN := (I + tileN - 1) / tileN
	writes := make([]int, T*tilesN)
	cols := make([]int, T*I) // per row, how often each column < I enters the row's partials
	for u := range ctas {
		for c := range 2 {
			for _, tl := range scoreSimWalk(offs, T, tilesN, tileM, start, step, u, ctas, c) {
				r0, n0 := tl.row0+c*crows, tl.tn*tileN
				for mb := range mbs {
					for wl := range 4 {
						for lane := range 32 {
							sr := r0 + mb*64 + 16*wl + lane/4
							for h := range 2 {
								row := sr + 8*h
								if row < tl.end && (row < tl.first || row >= T) {
									return fmt.Errorf("score load of row %d: outside expert rows [%d,%d) or T", row, tl.first, tl.end)
								}
								if !bwd || lane%4 != 0 || row >= tl.end {
									continue
								}
								writes[row*tilesN+tl.tn]++
								rr := r0 + mb*64
								for nb := range nbs {
									cc := n0 + nb*64
									if rr >= tl.end || cc >= I {
										continue
									}
									// The quad's 4 lanes hold 2 columns of each of the
									// sub-tile's 8 column groups: all 64 columns.
									for col := cc; col < min(cc+64, I); col++ {
										cols[row*I+col]++
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if !bwd {
		return nil
	}
	for row := range T {
		for tn := range tilesN {
			if n := writes[row*tilesN+tn]; n != 1 {
				return fmt.Errorf("dscore_part[%d, %d] written %d times, want 1", row, tn, n)
			}
		}
		for col := range I {
			if n := cols[row*I+col]; n != 1 {
				return fmt.Errorf("row %d: column %d enters its partials %d times, want 1", row, col, n)
			}
		}
	}
	return nil
}
