package tiling

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDTypeSpecs checks the descriptor table's own rules: names unique and
// parseable, an element that fills whole 128-byte swizzle rows and MMA K
// steps that fill whole 32-byte lanes of one, a MeasuredAs of the same
// size, and every wgmma and tcgen05 shape of the limits in the type's K.
func TestDTypeSpecs(t *testing.T) {
	t.Parallel()
	seen := map[DType]bool{}
	for _, d := range DTypeSpecs() {
		if seen[d.DType] {
			t.Errorf("%s: listed twice", d.DType)
		}
		seen[d.DType] = true
		if p, err := ParseDType(string(d.DType)); err != nil || p != d.DType {
			t.Errorf("ParseDType(%q) = %q, %v", d.DType, p, err)
		}
		if d.Bytes <= 0 || kSwizzleAtomBytes%d.Bytes != 0 {
			t.Errorf("%s: Bytes %d: want a divisor of the %d-byte swizzle row", d.DType, d.Bytes, kSwizzleAtomBytes)
		}
		if d.MMAK <= 0 || kSwizzleAtomBytes%(d.MMAK*d.Bytes) != 0 {
			t.Errorf("%s: MMAK %d: an MMA K step of %d bytes must divide the swizzle row", d.DType, d.MMAK, d.MMAK*d.Bytes)
		}
		for _, f := range []string{d.PTX, d.Unpack, d.Pack, d.Trait, d.MMAKind, d.TMA, d.Torch} {
			if f == "" || strings.TrimSpace(f) != f {
				t.Errorf("%s: a word field is %q", d.DType, f)
			}
		}
		if d.Tol <= 0 || d.Tol >= 1 {
			t.Errorf("%s: Tol %g: want (0, 1)", d.DType, d.Tol)
		}
		if d.MeasuredAs != "" {
			if m, err := d.MeasuredAs.Spec(); err != nil || m.Bytes != d.Bytes || m.MeasuredAs != "" {
				t.Errorf("%s: MeasuredAs %q: want a type of the same size that is measured itself (%+v, %v)", d.DType, d.MeasuredAs, m, err)
			}
		}
		if got := d.DType.Size(); got != d.Bytes {
			t.Errorf("%s.Size() = %d, want %d", d.DType, got, d.Bytes)
		}
		for _, a := range Arches() {
			l, err := LimitsFor(a)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range []int{1, 2} {
				if s, ok := l.MMAFor(d.DType, g); !ok || s.K != d.MMAK {
					t.Errorf("%s %s cta_group %d: MMA %+v, %v: want K %d", a, d.DType, g, s, ok, d.MMAK)
				}
			}
		}
	}
	if diff := cmp.Diff([]DType{BF16, FP16}, DTypes()); diff != "" {
		t.Errorf("DTypes (-want +got):\n%s", diff)
	}
	if !seen[DefaultDType] {
		t.Errorf("DefaultDType %q has no descriptor", DefaultDType)
	}
}

// TestDTypeSpecErrors checks the lookups' errors name the type and the
// types there are.
func TestDTypeSpecErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    DType
		want []string
	}{
		{"fp8", []string{`dtype "fp8"`, "bf16, fp16"}},
		{"", []string{`dtype ""`}},
	} {
		if _, err := tt.d.Spec(); err == nil || !containsAll(err.Error(), tt.want) {
			t.Errorf("Spec(%q) = %v, want an error naming %q", tt.d, err, tt.want)
		}
		if _, err := tt.d.HelperSpec("op"); err == nil || !strings.HasPrefix(err.Error(), "op: ") {
			t.Errorf("HelperSpec(%q) = %v, want an error starting with the caller's name", tt.d, err)
		}
		if n := tt.d.Size(); n != 0 {
			t.Errorf("Size(%q) = %d, want 0", tt.d, n)
		}
	}
	if diff := cmp.Diff(DTypes(), HelperDTypes()); diff != "" {
		t.Errorf("HelperDTypes (-DTypes +got): every type has helpers today:\n%s", diff)
	}
}

func containsAll(s string, subs []string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
