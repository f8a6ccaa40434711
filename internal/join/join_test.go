package join

import "testing"

func TestJoin(t *testing.T) {
	t.Parallel()
	type name string
	for _, tt := range []struct{ got, want string }{
		{Ints(nil), ""},
		{Ints([]int{1}), "1"},
		{Ints([]int{1, -2, 30}), "1, -2, 30"},
		{Strings([]name{"a", "b"}), "a, b"},
		{Strings([]string{}), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
