package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
)

const diffLong = `Check that generated output on disk is up to date.

diff takes the same flags as emit, renders and compiles everything in memory
(nothing is written) and compares it with the files in the output directory
(-o). It prints a unified diff of every stale text file (sources, manifests,
the index, the Go bindings of --go-package, the ptxas reports) and, for
cubins, the sha256 on disk and rendered. It exits 0 when everything is up
to date and 3 when anything is stale or missing. Builds are
bit-reproducible, so a cubin differs only when its source, flags or
compiler do.

Files on disk that emit would not write are ignored. Checking cubins
needs the CUDA compiler; with --no-compile only the sources and the
per-kernel manifests are compared.`

func newDiffCmd(e *env, runF func(context.Context, *emitOptions) error) *cobra.Command {
	// diff is emit's flag set with another action, so the two can never
	// disagree on what a flag means.
	cmd := newEmitCmd(e, func(ctx context.Context, o *emitOptions) error {
		if runF != nil {
			return runF(ctx, o)
		}
		return runDiff(ctx, e, o)
	})
	cmd.Use = "diff"
	cmd.Short = "Check that emitted kernels and Go bindings on disk are up to date (exit 3 when stale)"
	cmd.Long = diffLong
	cmd.Example = `  swigen diff --go-package kernels -o kernels --arch sm_90a
  swigen diff --catalog --no-compile -o /tmp/swigen-src`
	return cmd
}

func runDiff(ctx context.Context, e *env, o *emitOptions) error {
	o.DryRun = func(res *gen.EmitResult, tc *toolchain.Toolchain) error {
		srcOnly := tc == nil
		var checked, stale int
		for _, f := range res.Output {
			if skipDiff(f.Name, srcOnly, res) {
				continue
			}
			checked++
			text, err := diffFile(o.Out, f)
			if err != nil {
				return fmt.Errorf("diff: %w", err)
			}
			if text != "" {
				stale++
				fmt.Fprint(e.stdout, text)
			}
		}
		what := "files"
		if srcOnly {
			what = "sources and manifests (--no-compile: cubins, index and Go bindings not checked)"
		}
		if stale > 0 {
			return &exitError{code: exitStale, err: fmt.Errorf("diff: %s: %d of %d %s stale; run swigen emit with the same flags", o.Out, stale, checked, what)}
		}
		fmt.Fprintf(e.stdout, "%s: up to date (%d %s)\n", o.Out, checked, what)
		return nil
	}
	return runEmit(ctx, e, o)
}

// skipDiff says which laid-out files diff does not compare: without a
// compiler, everything but the kernels' sources and manifests (the index,
// the reports and the bindings then describe a build without cubins, which
// is not what is on disk).
func skipDiff(name string, srcOnly bool, res *gen.EmitResult) bool {
	if !srcOnly {
		return false
	}
	for _, k := range res.Kernels {
		if name == k.Artifact.Name+".cu" || name == k.Artifact.Name+".json" {
			return false
		}
	}
	return true
}

// diffFile compares one rendered file with dir's copy and returns the
// report of a difference, "" when they are equal. Cubins are compared by
// sha256, everything else as text.
func diffFile(dir string, f gen.OutputFile) (string, error) {
	path := filepath.Join(dir, f.Name)
	disk, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return "", err
	}
	if !missing && bytes.Equal(disk, f.Data) {
		return "", nil
	}
	if strings.HasSuffix(f.Name, ".cubin") {
		want := sha256.Sum256(f.Data)
		if missing {
			return fmt.Sprintf("cubin %s: missing on disk; rendered sha256 %s\n", path, hex.EncodeToString(want[:])), nil
		}
		got := sha256.Sum256(disk)
		return fmt.Sprintf("cubin %s: sha256 %s on disk, %s rendered\n", path, hex.EncodeToString(got[:]), hex.EncodeToString(want[:])), nil
	}
	from := path
	if missing {
		from = "/dev/null"
	}
	return unifiedDiff(from, path+" (rendered)", string(disk), string(f.Data)), nil
}

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

// unifiedDiff returns a unified diff (diff -u style) of a and b, "" when
// they are equal. Lines are compared exactly; a missing final newline is
// marked like diff does.
func unifiedDiff(nameA, nameB, a, b string) string {
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
