// Package textdiff computes line diffs of text files: a minimal edit
// script (longest common subsequence, with the common prefix and suffix
// trimmed first) printed as a unified diff, as `diff -u` prints it.
package textdiff

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// maxDiffCells bounds the LCS table (lines after trimming the common prefix
// and suffix, one side times the other); beyond it the changed middle is
// shown as one replacement rather than spending seconds and memory on it.
const maxDiffCells = 1 << 24

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// Unified returns a unified diff (diff -u style) of a and b, "" when
// they are equal. Lines are compared exactly; a missing final newline is
// marked like diff does.
func Unified(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	la, lb := splitLines(a), splitLines(b)
	ops := lineOps(la, lb)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	// Walk the ops, cutting hunks at runs of more than 2*diffContext
	// unchanged lines.
	i := 0
	for i < len(ops) {
		// find the next change
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		writeHunk(&out, ops, start, end)
		i = end
	}
	return out.String()
}

// writeHunk writes ops[start:end] as one hunk with its @@ header.
func writeHunk(out *strings.Builder, ops []diffOp, start, end int) {
	// Line numbers (1-based) of the hunk's first line in a and b.
	la, lb := 1, 1
	for _, op := range ops[:start] {
		if op.kind != '+' {
			la++
		}
		if op.kind != '-' {
			lb++
		}
	}
	var na, nb int
	for _, op := range ops[start:end] {
		if op.kind != '+' {
			na++
		}
		if op.kind != '-' {
			nb++
		}
	}
	// An empty range names the line before it (diff -u's convention).
	if na == 0 {
		la--
	}
	if nb == 0 {
		lb--
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(la, na), hunkRange(lb, nb))
	for _, op := range ops[start:end] {
		line, nl := strings.CutSuffix(op.line, "\n")
		out.WriteByte(op.kind)
		out.WriteString(line)
		out.WriteByte('\n')
		if !nl {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s after each newline, keeping it, so that a last line
// without one differs from the same line with one.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// lineOps is a shortest edit script from a to b: the common prefix and
// suffix are trimmed, the middle aligned by a longest common subsequence.
func lineOps(a, b []string) []diffOp {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []diffOp
	for _, l := range a[:p] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	ops = append(ops, lcsOps(ma, mb)...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func lcsOps(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// t[i][j] is the LCS length of a[i:] and b[j:].
	w := len(b) + 1
	t := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			} else {
				t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
