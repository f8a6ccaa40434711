package launch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestVariantEntries(t *testing.T) {
	t.Parallel()
	got := VariantEntries(func(dt tiling.DType, vec bool) string {
		if vec {
			return "k_" + string(dt) + "_vec"
		}
		return "k_" + string(dt)
	})
	want := []string{"k_bf16_vec", "k_bf16", "k_fp16_vec", "k_fp16"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("VariantEntries (-want +got):\n%s", diff)
	}
}

func TestHelperNilClose(t *testing.T) {
	t.Parallel()
	var h *Helper
	if h.Loaded() {
		t.Error("nil Helper reports loaded")
	}
	if err := h.Close(); err != nil {
		t.Errorf("Close of a nil Helper: %v", err)
	}
}
