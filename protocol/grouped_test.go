package protocol

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGroupedTiles: the tile sequence skips empty experts and cuts each
// expert's rows into whole and one ragged m-block.
func TestGroupedTiles(t *testing.T) {
	got := GroupedTiles([]int{0, 5, 0, 8}, 4, 2)
	want := []GroupedTile{
		{0, 5, 0}, {0, 5, 1}, {4, 5, 0}, {4, 5, 1},
		{5, 13, 0}, {5, 13, 1}, {9, 13, 0}, {9, 13, 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GroupedTiles (-want +got):\n%s", d)
	}
}
