package tiling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKindRegistry checks the registry's invariants: unique kinds, each
// found by KindOf, one plain GEMM, Go names unique, bench words unique,
// and the default kind benched and tunable.
func TestKindRegistry(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	claim := func(what, name string, k Kernel) {
		if name == "" {
			return
		}
		if prev, ok := seen[what+name]; ok {
			t.Errorf("%s %q of %s already belongs to %s", what, name, k, prev)
		}
		seen[what+name] = string(k)
	}
	plain := 0
	for _, s := range Kinds() {
		got, ok := KindOf(s.Kernel)
		if !ok || got.Kernel != s.Kernel {
			t.Errorf("KindOf(%s) = %v, %v", s.Kernel, got.Kernel, ok)
		}
		claim("kind", string(s.Kernel), s.Kernel)
		claim("GoName", s.GoName, s.Kernel)
		claim("GoArgs", s.GoArgs, s.Kernel)
		claim("bench word", s.Benched, s.Kernel)
		if s.Plain {
			plain++
		}
		if s.NName == "" || s.Baseline == "" {
			t.Errorf("kind %s: NName and Baseline are required", s.Kernel)
		}
		if s.StoreOut != (s.ModeStoreOut != "") {
			t.Errorf("kind %s: StoreOut %v but ModeStoreOut %q", s.Kernel, s.StoreOut, s.ModeStoreOut)
		}
	}
	if plain != 1 {
		t.Errorf("%d kinds are Plain, want 1", plain)
	}
	d, _ := KindOf(DefaultKernel())
	if d.Benched == "" || !d.Tunable {
		t.Errorf("default kind %s must be benched and tunable", d.Kernel)
	}
	if _, ok := KindOf("conv"); ok {
		t.Error("KindOf(conv) found a kind")
	}
}

// TestWords checks the prose lists of kinds.
func TestWords(t *testing.T) {
	t.Parallel()
	got := []string{Words(nil), Words([]Kernel{"a"}), Words([]Kernel{"a", "b"}), Words([]Kernel{"a", "b", "c"}), Words(UnfusedKinds())}
	want := []string{"", "a", "a and b", "a, b and c", "bwd_dswiglu and fwd_gateup"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
