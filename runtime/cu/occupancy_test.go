package cu

import (
	"errors"
	"strings"
	"testing"
)

// TestMaxActiveBlocksPerSMErrors: every failure of the occupancy query is
// an error naming the operation, never a panic, driver or not.
func TestMaxActiveBlocksPerSMErrors(t *testing.T) {
	t.Parallel()
	closed := &Function{mod: &Module{ctx: &Context{closed: true}}, name: "k"}
	for _, tt := range []struct {
		name          string
		f             *Function
		threads, smem int
		wantIs        error
		wantSubstring string
	}{
		{"nil function", nil, 256, 0, nil, "nil function"},
		{"function without module", &Function{name: "k"}, 256, 0, nil, "nil function"},
		{"zero threads", closed, 0, 0, nil, "want threads > 0"},
		{"negative smem", closed, 256, -1, nil, "want threads > 0, smem >= 0"},
		{"closed context", closed, 256, 1024, ErrClosed, "max active blocks per SM"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := tt.f.MaxActiveBlocksPerSM(tt.threads, tt.smem)
			if err == nil || n != 0 {
				t.Fatalf("MaxActiveBlocksPerSM = %d, %v; want 0 and an error", n, err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantSubstring) {
				t.Errorf("error %q lacks %q", err, tt.wantSubstring)
			}
		})
	}
}

// TestOccupancySymbolOptional: the occupancy entry point is bound when
// present and never required, so a driver without it still binds and the
// call reports ErrMissingSymbol (covered on a GPU by
// TestGPUMaxActiveBlocksPerSM).
func TestOccupancySymbolOptional(t *testing.T) {
	t.Parallel()
	found := false
	for _, s := range allSyms {
		if s == &cuOccupancyMaxActiveBlocksPerMultiprocessor {
			found = true
		}
	}
	if !found || !cuOccupancyMaxActiveBlocksPerMultiprocessor.optional {
		t.Errorf("cuOccupancyMaxActiveBlocksPerMultiprocessor: in allSyms %v, optional %v; want both", found, cuOccupancyMaxActiveBlocksPerMultiprocessor.optional)
	}
}
