// Package join formats lists for messages, help texts and generated code:
// the elements separated by ", ".
package join

import (
	"strconv"
	"strings"
)

// Ints is xs as "1, 2, 3".
func Ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// Strings is xs as "a, b, c", for any string type (tiling's enums).
func Strings[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
