package view

import "fmt"

// EpiSwizzle is how the sm_90a epilogue's sub-tile lies in its
// staging slot: row r at r*RowBytes, its 16-byte chunk j at chunk
// j ^ Term(r), the place the TMA's swizzle of RowBytes bytes (the box's
// inner row, manifest.BoxesOf and manifest's swizzleOf) puts it. The TMA
// defines its swizzle on the shared-memory address: bits [4, 4+b) of a
// byte address are XORed with bits [7, 7+b), b = log2(RowBytes/16), so
// with rows of RowBytes the XOR term of row r is (r*RowBytes >> 7) & Mask.
// The kernel's ldmatrix/stmatrix and 32-bit accesses address the slot
// through RowBytes and Term, so this type is the one owner of the formula.
type EpiSwizzle struct {
	// RowBytes is one sub-tile row: 128 (64 16-bit columns) or 64 (32).
	RowBytes int
	// Shift and Mask give the XOR term of row r: (r >> Shift) & Mask.
	Shift, Mask int
}

// EpiSwizzleOf is the swizzle of a sub-tile cols columns of elemBytes-byte
// elements wide: 128-byte rows and swizzle (64 16-bit columns) or 64-byte
// ones (32); anything else is an error.
func EpiSwizzleOf(cols, elemBytes int) (EpiSwizzle, error) {
	switch cols * elemBytes {
	case 128:
		return EpiSwizzle{RowBytes: 128, Shift: 0, Mask: 7}, nil
	case 64:
		return EpiSwizzle{RowBytes: 64, Shift: 1, Mask: 3}, nil
	}
	return EpiSwizzle{}, fmt.Errorf("view: epilogue sub-tile of %d columns of %d bytes: want 64- or 128-byte rows (a 64- or 128-byte swizzle row)", cols, elemBytes)
}

// Term is the C expression of the XOR term of a row that is congruent to
// row modulo 8 (the term depends on r mod 8 only): "row & 7" for 128-byte
// rows, "(row >> 1) & 3" for 64-byte ones.
func (s EpiSwizzle) Term(row string) string {
	if s.Shift == 0 {
		return fmt.Sprintf("%s & %d", row, s.Mask)
	}
	return fmt.Sprintf("(%s >> %d) & %d", row, s.Shift, s.Mask)
}

// Offset is the byte offset in the slot of row r's 16-byte chunk j, as the
// kernel computes it.
func (s EpiSwizzle) Offset(r, j int) int {
	return r*s.RowBytes + (j^(r>>s.Shift&s.Mask))<<4
}

// FragRow is the slot offset sw_frag4_row gives lane of warp wl for the
// ldmatrix/stmatrix x4 of fragments g..g+3 (i = 2*jj + h: rows 16*wl + 8h
// + 0..7, columns 8jj..8jj+7; lanes 8m..8m+7 address the rows of matrix m,
// fragment g + m).
func (s EpiSwizzle) FragRow(wl, lane, g int) int {
	jj, h := g/2+lane>>4, lane>>3&1
	return s.Offset(16*wl+8*h+lane&7, jj)
}
