package view

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tmaSwizzled is where the TMA puts byte b of a box whose rows are packed
// rowBytes apart, under the swizzle of the same width, into a slot aligned
// to the swizzle's repeat: the CUDA definition on the shared-memory
// address, bits [4, 4+k) XOR bits [7, 7+k), k = log2(rowBytes/16). It is
// written from the hardware's rule, not from EpiSwizzle, so it checks it.
func tmaSwizzled(rowBytes, b int) int {
	mask := rowBytes/16 - 1
	return b ^ ((b >> 7 & mask) << 4)
}

func TestEpiSwizzleOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cols            int
		want            EpiSwizzle
		termR, termLane string
	}{
		{64, EpiSwizzle{RowBytes: 128, Shift: 0, Mask: 7}, "r & 7", "lane & 7"},
		{32, EpiSwizzle{RowBytes: 64, Shift: 1, Mask: 3}, "(r >> 1) & 3", "(lane >> 1) & 3"},
	}
	for _, tt := range tests {
		got, err := EpiSwizzleOf(tt.cols, 2)
		if err != nil {
			t.Fatalf("EpiSwizzleOf(%d): %v", tt.cols, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("EpiSwizzleOf(%d) (-want +got):\n%s", tt.cols, diff)
		}
		// The template's terms: the lane stands for a row congruent to it
		// modulo 8 (sw_frag4_row's rows are 16*wl + 8h + lane%8).
		if g := got.Term("r"); g != tt.termR {
			t.Errorf("cols %d: Term(r) = %q, want %q", tt.cols, g, tt.termR)
		}
		if g := got.Term("lane"); g != tt.termLane {
			t.Errorf("cols %d: Term(lane) = %q, want %q", tt.cols, g, tt.termLane)
		}
	}
	if _, err := EpiSwizzleOf(16, 2); err == nil {
		t.Error("EpiSwizzleOf(16, 2): no error")
	}
}

// TestEpiSwizzleMatchesTMA: every 16-byte chunk of a 64-row sub-tile is
// where the kernel looks for it (EpiSwizzle.Offset), the chunks fill the
// slot exactly once, and the term depends on the row modulo 8 only.
func TestEpiSwizzleMatchesTMA(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{32, 64} {
		s, _ := EpiSwizzleOf(cols, 2)
		seen := map[int]bool{}
		for r := 0; r < EpiSubRows; r++ {
			for j := 0; j < s.RowBytes/16; j++ {
				want := tmaSwizzled(s.RowBytes, r*s.RowBytes+16*j)
				if got := s.Offset(r, j); got != want {
					t.Fatalf("cols %d: row %d chunk %d: kernel offset %d, TMA puts it at %d", cols, r, j, got, want)
				}
				if r%8 != 0 && s.Offset(r, j)-r*s.RowBytes != s.Offset(r%8, j)-r%8*s.RowBytes {
					t.Fatalf("cols %d: row %d: XOR term differs from row %d's", cols, r, r%8)
				}
				seen[want] = true
			}
		}
		if len(seen) != EpiSubRows*s.RowBytes/16 {
			t.Errorf("cols %d: %d distinct chunks, want %d", cols, len(seen), EpiSubRows*s.RowBytes/16)
		}
	}
}

// TestEpiFragRowsLdmatrix models each ldmatrix/stmatrix x4 of the
// epilogue: the row addresses lanes 8m..8m+7 give must be rows 16*wl + 8h
// + 0..7 of fragment g+m (i = 2*jj + h), columns 8jj..8jj+7, at the place
// the TMA put them; and each 8-lane phase (one 8x8 matrix, 8 x 16 bytes)
// must hit all 32 banks once: no bank conflicts.
func TestEpiFragRowsLdmatrix(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{32, 64} {
		s, _ := EpiSwizzleOf(cols, 2)
		frags := cols / 4 // fragments per warp and sub-tile
		for wl := 0; wl < 4; wl++ {
			for g := 0; g < frags; g += 4 {
				for m := 0; m < 4; m++ {
					i := g + m
					jj, h := i/2, i%2
					banks := map[int]bool{}
					for q := 0; q < 8; q++ {
						lane := 8*m + q
						got := s.FragRow(wl, lane, g)
						row := 16*wl + 8*h + q
						if want := tmaSwizzled(s.RowBytes, row*s.RowBytes+16*jj); got != want {
							t.Fatalf("cols %d wl %d g %d lane %d: row address %d, want %d (row %d, columns %d..%d)",
								cols, wl, g, lane, got, want, row, 8*jj, 8*jj+7)
						}
						for w := 0; w < 4; w++ {
							banks[(got/4+w)%32] = true
						}
					}
					if len(banks) != 32 {
						t.Errorf("cols %d wl %d fragment %d: %d of 32 banks: conflicts", cols, wl, i, len(banks))
					}
				}
			}
		}
	}
}
