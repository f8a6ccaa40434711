package check

import (
	"strings"
	"testing"
)

// TestNewGroupedRunRefuses: counts that are not one per expert or do not
// sum to T are refused, naming the values, before any GPU work.
func TestNewGroupedRunRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sh     [4]int
		counts []int
		errHas string
	}{
		{[4]int{10, 64, 64, 3}, []int{5, 5}, "2 token counts for E=3 experts"},
		{[4]int{10, 64, 64, 2}, []int{5, 4}, "sum to 9, not T=10"},
	} {
		if _, err := NewGroupedRun(nil, nil, tt.sh, tt.counts); err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("NewGroupedRun(%v, %v): %v, want %q", tt.sh, tt.counts, err, tt.errHas)
		}
	}
}
