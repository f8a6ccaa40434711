package check

import "testing"

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"abcd", "abcd", -1}, {"abcd", "abxd", 2}, {"ab", "abc", 2}, {"abc", "ab", 2}, {"", "", -1}} {
		if got := firstDiff([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("firstDiff(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
