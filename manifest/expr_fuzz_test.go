package manifest

import (
	"strings"
	"testing"
)

// FuzzExprEval: any text is evaluated or refused with an error, never a
// panic or a stack overflow; what Eval accepts, Check accepts.
func FuzzExprEval(f *testing.F) {
	for _, s := range []string{
		"2*I", "cdiv(M,128)*cdiv(I,192)", "(M+1)*(N-2)", "cdiv(cdiv(M,2),3)", "",
		"((((M))))", "cdiv(", "9223372036854775807*2", "-M", "M N",
		strings.Repeat("(", MaxExprDepth) + "1" + strings.Repeat(")", MaxExprDepth),
		strings.Repeat("(", MaxExprDepth+1) + "1" + strings.Repeat(")", MaxExprDepth+1),
		strings.Repeat("cdiv(", 100) + "1",
		strings.Repeat("(", 100000),
	} {
		f.Add(s)
	}
	sizes := Sizes{"M": 4096, "N": 128, "K": 768, "I": 4608}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := Expr(s).Eval(sizes)
		if cerr := Expr(s).Check(); err == nil && cerr != nil {
			t.Errorf("Eval(%q) succeeds, Check fails: %v", s, cerr)
		}
	})
}

// TestExprDepth: the nesting bound holds for parentheses and cdiv, at
// the depths the issue found (millions, which overflowed the stack).
func TestExprDepth(t *testing.T) {
	t.Parallel()
	nest := func(open, close string, n int) Expr {
		return Expr(strings.Repeat(open, n) + "M" + strings.Repeat(close, n))
	}
	for _, tt := range []struct {
		e      Expr
		wantOK bool
	}{
		{nest("(", ")", MaxExprDepth), true},
		{nest("(", ")", MaxExprDepth+1), false},
		{nest("cdiv(", ",1)", MaxExprDepth), true},
		{nest("cdiv(", ",1)", MaxExprDepth+1), false},
		{nest("(", ")", 3_000_000), false},
	} {
		_, err := tt.e.Eval(Sizes{"M": 7})
		if (err == nil) != tt.wantOK {
			t.Errorf("Eval of depth %d: %v, want ok=%v", strings.Count(string(tt.e), "("), err, tt.wantOK)
		}
		if err != nil && !strings.Contains(err.Error(), "nested deeper than") {
			t.Errorf("error %v does not name the nesting", err)
		}
		if err := tt.e.Check(); (err == nil) != tt.wantOK {
			t.Errorf("Check of depth %d: %v", strings.Count(string(tt.e), "("), err)
		}
	}
}
