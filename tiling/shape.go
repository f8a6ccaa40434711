package tiling

import (
	"fmt"
	"slices"
	"strings"
)

// Shape is a problem size. For bwd_dswiglu the GEMM is M x I x K: dy is
// [M,K], W_down [I,K], and dout (never stored) [M,I]. For gemm, I is N:
// C[M,N] = A[M,K] @ B[K,N].
type Shape struct{ M, K, I int }

// String formats s as ParseShape and ParseKindShape accept it, for every
// kind (the keyed form).
func (s Shape) String() string { return fmt.Sprintf("M=%d,K=%d,I=%d", s.M, s.K, s.I) }

// Validate checks that every size is positive and that K and I are
// multiples of 8, so every 16-bit row pitch is a multiple of the 16 bytes
// TMA requires. M is free: TMA clips ragged rows.
func (s Shape) Validate() error {
	var bad []string
	for _, d := range []struct {
		n    string
		v    int
		mult int
	}{{"M", s.M, 1}, {"K", s.K, 8}, {"I", s.I, 8}} {
		switch {
		case d.v <= 0:
			bad = append(bad, fmt.Sprintf("%s=%d: must be a positive integer", d.n, d.v))
		case d.v%d.mult != 0:
			bad = append(bad, fmt.Sprintf("%s=%d: must be a multiple of 8 (16-byte TMA row pitch)", d.n, d.v))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("tiling: shape %s: %s", s, strings.Join(bad, "; "))
	}
	return nil
}

// shapeForm is how one kind's positional --shape is read: names[j] is
// the name of the Shape field j (M, K, I) in this kind's words, and
// order[p] the field the p-th positional size fills.
type shapeForm struct {
	names [3]string
	order [3]int
}

// The two positional orders. The MLP kinds read their model's sizes
// M,K,I (tokens, hidden, intermediate). gemm reads M,N,K, the BLAS order
// of C[M,N] = A[M,K] @ B[K,N] that its config names (m..n..k..), cuBLAS,
// `swigen bench gemm` and `swigen tune --kernel gemm` have always used.
var (
	mlpShapeForm  = shapeForm{names: [3]string{"M", "K", "I"}, order: [3]int{0, 1, 2}}
	gemmShapeForm = shapeForm{names: [3]string{"M", "K", "N"}, order: [3]int{0, 2, 1}}
)

// formOf is kind k's form: its registry entry's, the MLP kinds' for an
// unregistered kind.
func formOf(k Kernel) shapeForm {
	if s, ok := KindOf(k); ok {
		return s.shape
	}
	return mlpShapeForm
}

// positional is the form's order as text, "M,K,I" or "M,N,K".
func (f shapeForm) positional() string {
	return f.names[f.order[0]] + "," + f.names[f.order[1]] + "," + f.names[f.order[2]]
}

// keyed is the form's keyed hint, "M=..,K=..,I=.." or "M=..,N=..,K=..".
func (f shapeForm) keyed() string {
	return f.names[f.order[0]] + "=.." + "," + f.names[f.order[1]] + "=..," + f.names[f.order[2]] + "=.."
}

// ShapeOrder is the order in which kind k reads a positional --shape:
// "M,N,K" for gemm, "M,K,I" for the MLP kinds.
func ShapeOrder(k Kernel) string { return formOf(k).positional() }

// FormatKindShape writes s positionally in kind k's order (ShapeOrder),
// so ParseKindShape(k, ...) reads it back.
func FormatKindShape(k Kernel, s Shape) string {
	v := KindShapeSizes(k, s)
	return fmt.Sprintf("%d,%d,%d", v[0], v[1], v[2])
}

// KindShapeSizes is s's three sizes in kind k's positional order
// (ShapeOrder), for callers that format them themselves.
func KindShapeSizes(k Kernel, s Shape) [3]int {
	v := [3]int{s.M, s.K, s.I}
	o := formOf(k).order
	return [3]int{v[o[0]], v[o[1]], v[o[2]]}
}

// ParseShape parses "M,K,I" (e.g. "16384,768,4608") or the keyed form
// "M=16384,K=768,I=4608" (keys in any order, case-insensitive, N an alias
// of I) and validates the result. It is ParseKindShape for the MLP kinds.
func ParseShape(str string) (Shape, error) { return parseShape(mlpShapeForm, str) }

// ParseKindShape parses a --shape for kind k: positional sizes in k's
// order (ShapeOrder: M,N,K for gemm, M,K,I otherwise), or the keyed form,
// which means the same for every kind (M, K, and I or its alias N).
func ParseKindShape(k Kernel, str string) (Shape, error) { return parseShape(formOf(k), str) }

func parseShape(f shapeForm, str string) (Shape, error) {
	toks := strings.Split(str, ",")
	if len(toks) != 3 {
		return Shape{}, fmt.Errorf("tiling: parse shape %q: want three sizes \"%s\" or \"%s\"", str, f.positional(), f.keyed())
	}
	var v [3]int
	var seen [3]bool
	keyed := strings.Contains(str, "=")
	for i, tok := range toks {
		t := strings.TrimSpace(tok)
		idx := f.order[i]
		if keyed {
			k, val, ok := strings.Cut(t, "=")
			if !ok {
				return Shape{}, fmt.Errorf("tiling: parse shape %q: token %q: want KEY=VALUE (do not mix positional and keyed sizes)", str, tok)
			}
			if idx = keyIndex(k); idx < 0 {
				return Shape{}, fmt.Errorf("tiling: parse shape %q: token %q: key must be M, K or I (N for gemm)", str, tok)
			}
			if seen[idx] {
				return Shape{}, fmt.Errorf("tiling: parse shape %q: token %q: size given twice", str, tok)
			}
			t = strings.TrimSpace(val)
		}
		n, err := parseDim(t)
		if err != nil {
			return Shape{}, fmt.Errorf("tiling: parse shape %q: token %q: %w", str, tok, err)
		}
		if idx > 0 && n%8 != 0 {
			return Shape{}, fmt.Errorf("tiling: parse shape %q: token %q: %s must be a multiple of 8 (16-byte TMA row pitch)", str, tok, f.names[idx])
		}
		v[idx], seen[idx] = n, true
	}
	return Shape{M: v[0], K: v[1], I: v[2]}, nil
}

// keyIndex is the Shape field a keyed size names (N is I), or -1.
func keyIndex(key string) int {
	k := strings.ToUpper(strings.TrimSpace(key))
	if k == "N" {
		return 2
	}
	return slices.Index([]string{"M", "K", "I"}, k)
}

// ShapeDims names s's sizes for kind k in words: "M=.. N=.. K=.." for
// gemm (N is Shape.I), "M=.. K=.. I=.." for the MLP kinds.
func ShapeDims(k Kernel, s Shape) string {
	f := formOf(k)
	v := [3]int{s.M, s.K, s.I}
	o := f.order
	return fmt.Sprintf("%s=%d %s=%d %s=%d", f.names[o[0]], v[o[0]], f.names[o[1]], v[o[1]], f.names[o[2]], v[o[2]])
}
