package check

import (
	"slices"
	"testing"
)

// TestMoERoutings checks the routings' offsets are the running sums of
// their counts and that the set holds the cases it promises.
func TestMoERoutings(t *testing.T) {
	const tileM = 128
	var empty, one, all, edge bool
	for _, r := range MoERoutings(tileM) {
		offs := r.Offs()
		if len(offs) != len(r.Counts) || int(offs[len(offs)-1]) != r.T() {
			t.Errorf("%s: offs %v do not end at T=%d", r.Name, offs, r.T())
		}
		if r.K%8 != 0 || r.I%8 != 0 {
			t.Errorf("%s: K=%d, I=%d must be multiples of 8", r.Name, r.K, r.I)
		}
		nonEmpty := 0
		for _, c := range r.Counts {
			if c > 0 {
				nonEmpty++
			}
		}
		empty = empty || nonEmpty < len(r.Counts)
		one = one || slices.Contains(r.Counts, 1)
		all = all || nonEmpty == 1 && len(r.Counts) > 1
		edge = edge || slices.Contains(r.Counts, tileM-1) && slices.Contains(r.Counts, tileM) && slices.Contains(r.Counts, tileM+1)
	}
	if !empty || !one || !all || !edge {
		t.Errorf("routings lack a case: empty experts %v, one-token %v, one expert holding all %v, tileM-1/tileM/tileM+1 %v", empty, one, all, edge)
	}
	if got := ZipfCounts(1, 1000, 16, 1.2); got[0] <= got[15] {
		t.Errorf("Zipf counts %v: expert 0 should get the most", got)
	}
	if got := UniformCounts(1, 1000, 16); sum(got) != 1000 {
		t.Errorf("uniform counts %v sum to %d, want 1000", got, sum(got))
	}
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}
