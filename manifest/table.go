package manifest

import (
	"fmt"
	"strconv"
	"strings"
)

// mono is a monomial c*s1*s2...: the dimensions and strides of swigen's
// tensor maps are all of this form, so their expressions stay as short as
// a person would write them.
type mono struct {
	c    int
	syms []string
}

// size is the monomial of one problem size, num a constant.
func size(s string) mono { return mono{c: 1, syms: []string{s}} }
func num(c int) mono     { return mono{c: c} }

// scaled is c times the problem size s.
func scaled(c int, s string) mono { return mono{c: c, syms: []string{s}} }

func (m mono) times(o mono) mono {
	return mono{c: m.c * o.c, syms: append(append([]string(nil), m.syms...), o.syms...)}
}

func (m mono) expr() Expr {
	parts := make([]string, 0, 1+len(m.syms))
	if m.c != 1 || len(m.syms) == 0 {
		parts = append(parts, strconv.Itoa(m.c))
	}
	parts = append(parts, m.syms...)
	return Expr(strings.Join(parts, "*"))
}

// mapSpec is one tensor-map parameter of a kind's table.
type mapSpec struct {
	param  string // C parameter name
	buffer string
	shape  []mono // the buffer, row-major, outermost first
	dims   []mono // the map's view, innermost first
	box    [3]int
	doc    string // the buffer and view, for people
}

// scalar is one i32 parameter: its C name and value.
type scalar struct {
	param string
	value Expr
}

// ptrSpec is one ptr parameter: its C name and the buffer it points to.
type ptrSpec struct {
	param  string
	buffer Buffer
}

// table is what one kernel kind contributes to its manifest.
type table struct {
	sizes   []string
	maps    []mapSpec
	scalars []scalar
	ptrs    []ptrSpec // after the scalars
	rules   []Rule
	tiles   Expr
}

// params lays the table out in kernel order: the tensor maps, then the
// scalars.
func (t *table) params(dt DType, elemBytes int) []Param {
	var ps []Param
	for _, s := range t.maps {
		m := s.tensorMap(dt, elemBytes)
		ps = append(ps, Param{Name: s.param, Kind: KindTensorMap, Size: 128, Align: 64,
			Doc: fmt.Sprintf("%s, box %s, %s swizzle", s.doc, boxText(s.box, len(s.dims)), m.Swizzle),
			Map: m})
	}
	for _, s := range t.scalars {
		ps = append(ps, Param{Name: s.param, Kind: KindI32, Size: 4, Align: 4, Value: s.value})
	}
	for _, p := range t.ptrs {
		ps = append(ps, Param{Name: p.param, Kind: KindPtr, Size: 8, Align: 8, Buffer: p.buffer.Name, Doc: p.buffer.Doc})
	}
	return ps
}

// buffers lists every buffer the maps read, once, in parameter order.
func (t *table) buffers() []Buffer {
	var bs []Buffer
	seen := map[string]bool{}
	for _, s := range t.maps {
		if seen[s.buffer] {
			continue
		}
		seen[s.buffer] = true
		shape := make([]Expr, len(s.shape))
		for i, d := range s.shape {
			shape[i] = d.expr()
		}
		bs = append(bs, Buffer{Name: s.buffer, Shape: shape, Doc: s.doc})
	}
	for _, p := range t.ptrs {
		if !seen[p.buffer.Name] {
			seen[p.buffer.Name] = true
			bs = append(bs, p.buffer)
		}
	}
	return bs
}

// tensorMap is the encoding of s: a packed row-major view (each stride the
// product of the inner dims), the swizzle as wide as the box's inner row
// (swizzleOf), 256-byte L2 promotion.
func (s mapSpec) tensorMap(dt DType, elemBytes int) *TensorMap {
	rank := len(s.dims)
	tm := &TensorMap{Buffer: s.buffer, DType: dt, ElemBytes: elemBytes,
		Box: make([]int, rank), ElemStrides: make([]int, rank),
		Interleave: InterleaveNone, Swizzle: swizzleOf(s.box[0] * elemBytes), L2Promotion: L2Promotion256B, OOBFill: OOBFillNone}
	pitch := num(elemBytes)
	for i, d := range s.dims {
		tm.Dims = append(tm.Dims, d.expr())
		tm.Box[i], tm.ElemStrides[i] = s.box[i], 1
		if i > 0 {
			tm.Strides = append(tm.Strides, pitch.expr())
		}
		pitch = pitch.times(d)
	}
	return tm
}

// swizzleOf is the swizzle of a box whose inner row is rowBytes bytes: a
// 64-byte row (the sm_90a bwd_dswiglu 64x32 epilogue sub-tile) takes the
// 64-byte swizzle, every other box (64 16-bit elements) the 128-byte one.
// The kernel's shared-memory addressing assumes the same rule
// (view.EpiSwizzleOf).
func swizzleOf(rowBytes int) Swizzle {
	if rowBytes == 64 {
		return Swizzle64B
	}
	return Swizzle128B
}

// boxText formats a box as C does ({64, 128}).
func boxText(b [3]int, rank int) string {
	parts := make([]string, rank)
	for i := range parts {
		parts[i] = strconv.Itoa(b[i])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
