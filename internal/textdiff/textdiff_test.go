package textdiff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	lines := func(n int, edit map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := edit[i]; ok {
				b.WriteString(s)
				continue
			}
			b.WriteString("l" + string(rune('a'+i%26)) + "\n")
		}
		return b.String()
	}
	for _, tt := range []struct {
		name string
		a, b string
		want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- A\n+++ B\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"from empty", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\n", "", "--- A\n+++ B\n@@ -1 +0,0 @@\n-a\n"},
		{"appended", "a\nb\n", "a\nb\nc\n", "--- A\n+++ B\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{"no final newline", "a\nb", "a\nb\n", "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"context is three lines", lines(20, nil), lines(20, map[int]string{10: "X\n"}),
			"--- A\n+++ B\n@@ -7,7 +7,7 @@\n lh\n li\n lj\n-lk\n+X\n ll\n lm\n ln\n"},
		{"far changes make two hunks", lines(30, nil), lines(30, map[int]string{5: "X\n", 25: "Y\n"}),
			"--- A\n+++ B\n@@ -2,7 +2,7 @@\n lc\n ld\n le\n-lf\n+X\n lg\n lh\n li\n" +
				"@@ -22,7 +22,7 @@\n lw\n lx\n ly\n-lz\n+Y\n la\n lb\n lc\n"},
		{"near changes share a hunk", lines(20, nil), lines(20, map[int]string{5: "X\n", 11: "Y\n"}),
			"--- A\n+++ B\n@@ -2,13 +2,13 @@\n lc\n ld\n le\n-lf\n+X\n lg\n lh\n li\n lj\n lk\n-ll\n+Y\n lm\n ln\n lo\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Unified("A", "B", tt.a, tt.b)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unified (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLineOpsMinimal checks the edit script keeps every common line: the
// number of unchanged lines is the LCS length.
func TestLineOpsMinimal(t *testing.T) {
	t.Parallel()
	a := splitLines("a\nb\nc\nd\ne\nf\n")
	b := splitLines("b\nX\nc\nd\nf\nY\n")
	same := 0
	for _, op := range lineOps(a, b) {
		if op.kind == ' ' {
			same++
		}
	}
	if same != 4 { // b c d f
		t.Errorf("%d unchanged lines, want 4", same)
	}
}
