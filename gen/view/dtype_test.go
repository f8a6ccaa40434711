package view

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestElemOfReadsDescriptor checks that the view's element facts are the
// config's dtype descriptor's, and that the MMA K steps of the 16-bit types
// are the k16 walk the templates were written for.
func TestElemOfReadsDescriptor(t *testing.T) {
	t.Parallel()
	for _, d := range tiling.DTypeSpecs() {
		e, err := elemOf(tiling.Config{DType: d.DType})
		if err != nil {
			t.Fatal(err)
		}
		want := Elem{PTX: d.PTX, Unpack: d.Unpack, Pack: d.Pack, Trait: d.Trait, Bytes: d.Bytes, MMAK: d.MMAK}
		if diff := cmp.Diff(want, e); diff != "" {
			t.Errorf("%s (-descriptor +elemOf):\n%s", d.DType, diff)
		}
	}
	if _, err := elemOf(tiling.Config{DType: "fp8"}); err == nil {
		t.Error(`elemOf(dtype "fp8"): no error`)
	}
	e16 := Elem{Bytes: 2, MMAK: 16}
	if diff := cmp.Diff([]int{0, 32, 64, 96, 128 * 128, 128*128 + 32}, kmajorK16(e16, 96, 128)); diff != "" {
		t.Errorf("kmajorK16 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 16 * 128, 32 * 128, 48 * 128}, mnmajorK16(e16, 64)); diff != "" {
		t.Errorf("mnmajorK16 (-want +got):\n%s", diff)
	}
}

// TestBoxRowRefusesEmptyBox: the operand walks divide by the box's row, so
// a manifest without boxes is an error, not a panic.
func TestBoxRowRefusesEmptyBox(t *testing.T) {
	t.Parallel()
	if _, err := boxRow("A", [3]int{}); err == nil {
		t.Error("boxRow of an empty box: no error")
	}
	if n, err := boxRow("B", [3]int{64, 128}); err != nil || n != 64 {
		t.Errorf("boxRow({64, 128}) = %d, %v", n, err)
	}
}
