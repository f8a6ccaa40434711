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
		{expr: "cdiv(9223372036854775807,2)", want: 4611686018427387904},
		{expr: "cdiv(0-7,2)", want: -3},
		{expr: "9223372036854775807+1", wantErr: "integer overflow"},
		{expr: "0-9223372036854775807-2", wantErr: "integer overflow"},
		{expr: "4194304*4194304*4194304", wantErr: "integer overflow"},
		{expr: "K*K*K*K*K*K", wantErr: "integer overflow"},
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

// TestExprEvalNilSizes: without sizes every size is missing (a caller that
// forgot them must not launch at 1x1x1).
func TestExprEvalNilSizes(t *testing.T) {
	t.Parallel()
	if v, err := Expr("2*M").Eval(nil); err == nil || !strings.Contains(err.Error(), "size M not given (have none)") {
		t.Errorf("Eval(nil) = %d, %v; want a missing-size error", v, err)
	}
	if v, err := Expr("cdiv(8,3)").Eval(nil); err != nil || v != 3 {
		t.Errorf("constant Eval(nil) = %d, %v; want 3", v, err)
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

// TestGridBound: a grid beyond gridDim.x's range is an error, not a
// truncated launch.
func TestGridBound(t *testing.T) {
	t.Parallel()
	m := Manifest{Name: "k", ClusterDims: [3]int{1, 1, 1}, Grid: Grid{Tiles: "cdiv(M,128)*cdiv(I,128)", CTAsPerTile: 1, Scheduler: SchedulerCLC}}
	if g, err := m.GridCTAs(Sizes{"M": 1 << 30, "I": 1 << 30}, 132, 0); err == nil || !strings.Contains(err.Error(), "gridDim.x") {
		t.Errorf("GridCTAs = %d, %v; want a grid-range error", g, err)
	}
	if g, err := m.GridCTAs(Sizes{"M": 256, "I": 256}, 132, 0); err != nil || g != 4 {
		t.Errorf("GridCTAs = %d, %v; want 4", g, err)
	}
}
