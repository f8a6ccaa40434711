package manifest

import (
	"strings"
	"testing"
)

func TestExprEval(t *testing.T) {
	t.Parallel()
	sizes := Sizes{"M": 300, "K": 2048, "I": 264}
	tests := []struct {
		expr    Expr
		want    int64
		wantErr string
	}{
		{expr: "M", want: 300},
		{expr: "2*I", want: 528},
		{expr: "2*I*2", want: 1056},
		{expr: " 4 * I ", want: 1056},
		{expr: "M+K-1", want: 2347},
		{expr: "2*(M+1)", want: 602},
		{expr: "cdiv(M,128)*cdiv(I,192)", want: 3 * 2},
		{expr: "cdiv(M, 128) * cdiv(2*I, 128)", want: 3 * 5},
		{expr: "cdiv(0-5,2)", want: -2},
		{expr: "N", wantErr: "size N not given (have I, K, M)"},
		{expr: "2I", wantErr: `bad integer "2I"`},
		{expr: "", wantErr: "unexpected end"},
		{expr: "M*", wantErr: "unexpected end"},
		{expr: "(M", wantErr: "missing )"},
		{expr: "M)", wantErr: `unexpected ")"`},
		{expr: "cdiv(M)", wantErr: "cdiv: missing ,"},
		{expr: "cdiv(M,0)", wantErr: "divisor must be positive"},
		{expr: "M/2", wantErr: `unexpected "/2"`},
		{expr: "_M", wantErr: `bad size name "_M"`},
	}
	for _, tt := range tests {
		t.Run(string(tt.expr), func(t *testing.T) {
			got, err := tt.expr.Eval(sizes)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Eval(%q) = %d, %v; want an error containing %q", tt.expr, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Eval(%q) = %d, %v; want %d", tt.expr, got, err, tt.want)
			}
		})
	}
}

func TestExprCheck(t *testing.T) {
	t.Parallel()
	for _, e := range []Expr{"M", "cdiv(M,128)*cdiv(N,256)", "4*I"} {
		if err := e.Check(); err != nil {
			t.Errorf("Check(%q): %v", e, err)
		}
	}
	for _, e := range []Expr{"", "M+", "cdiv(M", "M I"} {
		if err := e.Check(); err == nil {
			t.Errorf("Check(%q): want a syntax error", e)
		}
	}
}
