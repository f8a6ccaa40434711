package manifest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Expr is an integer expression of a launch's problem sizes, written as
// text so that a manifest reads as the math it encodes ("2*I",
// "cdiv(M,128)*cdiv(I,192)"). The grammar is
//
//	expr   = term { ("+" | "-") term }
//	term   = factor { "*" factor }
//	factor = integer | size | "(" expr ")" | "cdiv(" expr "," expr ")"
//	size   = letter { letter | digit | "_" }
//
// where cdiv(a, b) is the ceiling of a/b for b > 0. Spaces are ignored.
// Every expression is also valid Python given
// cdiv = lambda a, b: -(-a // b) and the sizes as variables, so a loader in
// another language can evaluate it without a parser of its own.
type Expr string

// MaxExprDepth bounds the nesting of parentheses and cdiv calls in an
// Expr: the emitted expressions nest at most three deep, and a bound keeps
// the recursive parser's stack small on any input (a manifest is data).
const MaxExprDepth = 64

// Sizes are the problem sizes of one launch by name (M, N, K, I).
type Sizes map[string]int

// Eval evaluates e with the given sizes. It fails on a syntax error, a
// size missing from s (a nil s has none), a cdiv by a non-positive divisor
// and a result or intermediate beyond int64, naming the expression.
func (e Expr) Eval(s Sizes) (int64, error) {
	if s == nil {
		s = Sizes{}
	}
	p := &exprParser{src: string(e), sizes: s}
	v, err := p.expr()
	if err == nil && p.skip() < len(p.src) {
		err = fmt.Errorf("unexpected %q at offset %d", p.src[p.pos:], p.pos)
	}
	if err != nil {
		return 0, fmt.Errorf("manifest: expression %q: %w", string(e), err)
	}
	return v, nil
}

// Check parses e without sizes: it fails on a syntax error only.
func (e Expr) Check() error {
	p := &exprParser{src: string(e), parseOnly: true}
	_, err := p.expr()
	if err == nil && p.skip() < len(p.src) {
		err = fmt.Errorf("unexpected %q at offset %d", p.src[p.pos:], p.pos)
	}
	if err != nil {
		return fmt.Errorf("manifest: expression %q: %w", string(e), err)
	}
	return nil
}

// exprParser is a recursive-descent evaluator over src. With parseOnly it
// only parses: every size reads as 1 and cdiv as 1.
type exprParser struct {
	src       string
	pos       int
	sizes     Sizes
	parseOnly bool
	depth     int // open parentheses and cdiv calls
}

// enter opens a nesting level, failing beyond MaxExprDepth; leave closes it.
func (p *exprParser) enter() error {
	p.depth++
	if p.depth > MaxExprDepth {
		return fmt.Errorf("nested deeper than %d at offset %d", MaxExprDepth, p.pos)
	}
	return nil
}

func (p *exprParser) leave() { p.depth-- }

// skip moves past spaces and returns the position.
func (p *exprParser) skip() int {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
	return p.pos
}

// eat consumes c if it is next.
func (p *exprParser) eat(c byte) bool {
	if p.skip() < len(p.src) && p.src[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *exprParser) expr() (int64, error) {
	v, err := p.term()
	for err == nil {
		switch {
		case p.eat('+'):
			var w int64
			if w, err = p.term(); err == nil {
				v, err = checkedAdd(v, w)
			}
		case p.eat('-'):
			var w int64
			if w, err = p.term(); err == nil {
				if w == math.MinInt64 {
					err = errOverflow
				} else {
					v, err = checkedAdd(v, -w)
				}
			}
		default:
			return v, nil
		}
	}
	return 0, err
}

func (p *exprParser) term() (int64, error) {
	v, err := p.factor()
	for err == nil && p.eat('*') {
		var w int64
		if w, err = p.factor(); err == nil {
			v, err = checkedMul(v, w)
		}
	}
	return v, err
}

func (p *exprParser) factor() (int64, error) {
	start := p.skip()
	if p.eat('(') {
		if err := p.enter(); err != nil {
			return 0, err
		}
		defer p.leave()
		v, err := p.expr()
		if err == nil && !p.eat(')') {
			err = fmt.Errorf("missing ) at offset %d", p.pos)
		}
		return v, err
	}
	for p.pos < len(p.src) && isWordByte(p.src[p.pos]) {
		p.pos++
	}
	word := p.src[start:p.pos]
	switch {
	case word == "":
		if p.pos == len(p.src) {
			return 0, fmt.Errorf("unexpected end")
		}
		return 0, fmt.Errorf("unexpected %q at offset %d", p.src[p.pos:], p.pos)
	case word[0] >= '0' && word[0] <= '9':
		v, err := strconv.ParseInt(word, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad integer %q", word)
		}
		return v, nil
	case word == "cdiv" && p.eat('('):
		return p.cdiv()
	}
	return p.size(word)
}

// cdiv parses the arguments of cdiv( after the open parenthesis.
func (p *exprParser) cdiv() (int64, error) {
	if err := p.enter(); err != nil {
		return 0, err
	}
	defer p.leave()
	a, err := p.expr()
	if err != nil {
		return 0, err
	}
	if !p.eat(',') {
		return 0, fmt.Errorf("cdiv: missing , at offset %d", p.pos)
	}
	b, err := p.expr()
	if err != nil {
		return 0, err
	}
	if !p.eat(')') {
		return 0, fmt.Errorf("cdiv: missing ) at offset %d", p.pos)
	}
	if p.parseOnly {
		return 1, nil
	}
	if b <= 0 {
		return 0, fmt.Errorf("cdiv(%d, %d): divisor must be positive", a, b)
	}
	q := a / b // truncates toward zero: the ceiling for a < 0
	if a%b > 0 {
		q++
	}
	return q, nil
}

// size looks a size up.
func (p *exprParser) size(name string) (int64, error) {
	if !isLetter(name[0]) {
		return 0, fmt.Errorf("bad size name %q", name)
	}
	if p.parseOnly {
		return 1, nil
	}
	v, ok := p.sizes[name]
	if !ok {
		return 0, fmt.Errorf("size %s not given (have %s)", name, sizeNames(p.sizes))
	}
	return int64(v), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }

// sizeNames lists s's names, sorted, for error messages.
func sizeNames(s Sizes) string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// errOverflow is an intermediate or result beyond int64.
var errOverflow = errors.New("integer overflow (beyond int64)")

func checkedAdd(a, b int64) (int64, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, errOverflow
	}
	return a + b, nil
}

func checkedMul(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, errOverflow
	}
	return c, nil
}
