package kernelsrc

import (
	"bytes"
	"testing"
)

// TestWithPrelude: the prelude comes first, the source follows unchanged,
// and the caller's slice is not written.
func TestWithPrelude(t *testing.T) {
	t.Parallel()
	src := []byte("extern \"C\" __global__ void k() {}\n")
	got := WithPrelude(src[:len(src):len(src)])
	if !bytes.HasPrefix(got, prelude) || !bytes.HasSuffix(got, src) || len(got) != len(prelude)+len(src) {
		t.Fatalf("WithPrelude: %d bytes, want prelude (%d) + source (%d)", len(got), len(prelude), len(src))
	}
	for _, want := range []string{"to_f32", "to_16", "pack2", "struct alignas(16) Vec8"} {
		if !bytes.Contains(prelude, []byte(want)) {
			t.Errorf("prelude lacks %s", want)
		}
	}
	if bytes.Contains(prelude, []byte("#include")) {
		t.Error("the prelude includes a header: kernels must stay self-contained")
	}
}
