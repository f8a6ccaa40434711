package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitHalves(t *testing.T) {
	// [M=2, 2I=4] of 16-bit values 0..7 (little-endian bytes).
	raw := []byte{0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0}
	l, g := splitHalves(raw, 2)
	if diff := cmp.Diff([]byte{0, 0, 1, 0, 4, 0, 5, 0}, l); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]byte{2, 0, 3, 0, 6, 0, 7, 0}, g); diff != "" {
		t.Errorf("gate (-want +got):\n%s", diff)
	}
	l64, g64 := splitHalves64([]float64{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2)
	if diff := cmp.Diff([]float64{0, 1, 4, 5}, l64); diff != "" {
		t.Errorf("left64 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{2, 3, 6, 7}, g64); diff != "" {
		t.Errorf("gate64 (-want +got):\n%s", diff)
	}
}

func TestTranspose32(t *testing.T) {
	got := transpose32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if diff := cmp.Diff([]float32{1, 4, 2, 5, 3, 6}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRaggedShapesAreRaggedAndLegal(t *testing.T) {
	ragged := 0
	for _, s := range RaggedShapes() {
		if err := s.Validate(); err != nil {
			t.Errorf("%v: %v", s, err)
		}
		if s.M%64 != 0 || s.I%64 != 0 || s.K%64 != 0 {
			ragged++
		}
	}
	if ragged < 4 {
		t.Errorf("only %d ragged shapes; the list must exercise partial tiles", ragged)
	}
	// At least one ragged shape gives every CTA of an H200-sized grid (132)
	// three 128x128 tiles or more.
	many := false
	for _, s := range RaggedShapes() {
		tiles := ((s.M + 127) / 128) * ((s.I + 127) / 128)
		if tiles >= 3*132 && (s.M%128 != 0 || s.I%128 != 0 || s.K%64 != 0) {
			many = true
		}
	}
	if !many {
		t.Error("no ragged shape with several tiles per CTA")
	}
}
