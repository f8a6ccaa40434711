package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/internal/textdiff"
)

const diffLong = `Check that generated output on disk is up to date.

Without flags (--nvcc aside), diff checks the directory an emit wrote: the
current directory when it holds manifest.json, else out/ (emit's default
-o). It runs again the emit command that manifest.json records, so in a
package whose //go:generate line runs swigen emit -o ., go tool swigen
diff in that package checks it. A manifest.json that records no command
(written by the gen library or an older swigen) is a usage error: pass
emit's flags. With flags, diff takes the same flags as emit and checks the
output directory (-o) against them.

Either way diff renders and compiles everything in memory (nothing is
written, the build cache included) and compares it with the files on disk.
It prints a unified diff of every stale text file (sources, manifests, the
index, the Go bindings of --go-package, the __init__.py of --py-package,
the ptxas reports), for cubins the
sha256 on disk and rendered, and a summary of every stale file: changed,
missing, or left over (a file the previous emit wrote, by manifest.json,
that this emit would not write, such as the cubin of an --arch no longer
asked for). It exits 0 when everything is up to date, 3 when anything is
stale and 2 for bad usage. Builds are bit-reproducible, so a cubin differs
only when its source, flags or compiler do.

Files on disk that no emit wrote are ignored. Checking cubins needs the
CUDA compiler; with --no-compile given to diff only the sources and the
per-kernel manifests are compared (an emit recorded with --no-compile is
checked in full).`

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
	cmd.Example = `  swigen diff   # in a directory emit wrote: runs again the emit its manifest.json records
  swigen diff --go-package kernels -o kernels --arch sm_90a
  swigen diff --catalog --no-compile -o /tmp/swigen-src`
	return cmd
}

// staleFile is one file diff found out of date: its name, a word for
// how (changed, missing, left over) and, for a left-over file, what emit
// does with it.
type staleFile struct {
	name, how, note string
}

func runDiff(ctx context.Context, e *env, o *emitOptions) error {
	recorded := "" // the directory whose index gave o, without flags
	if onlyUnrecordedFlags(o.Changed) {
		ro, dir, err := recordedEmit(e, o)
		if err != nil {
			return err
		}
		o, recorded = ro, dir
	}
	o.DryRun = func(res *gen.EmitResult, tc *toolchain.Toolchain) error {
		// diff --no-compile checks the sources against a directory that
		// may hold a compiled emit; an emit recorded with --no-compile is
		// all sources, so everything is compared.
		srcOnly := tc == nil && recorded == ""
		var checked int
		var stale []staleFile
		for _, f := range res.Output {
			if skipDiff(f.Name, srcOnly, res) {
				continue
			}
			checked++
			text, how, err := diffFile(o.Out, f)
			if err != nil {
				return fmt.Errorf("diff: %w", err)
			}
			if text != "" {
				stale = append(stale, staleFile{name: f.Name, how: how})
				fmt.Fprint(e.stdout, text)
			}
		}
		left := diffLeftovers(o.Out, res, srcOnly)
		for _, l := range left {
			fmt.Fprintf(e.stdout, "%s: left over: the previous emit wrote it, this one would not; %s\n", filepath.Join(o.Out, l.name), l.note)
		}
		what := "files"
		if srcOnly {
			what = "sources and manifests (--no-compile: cubins, index and Go and Python bindings not checked)"
		}
		if len(stale)+len(left) > 0 {
			return &exitError{code: exitStale, err: errors.New(staleSummary(o, recorded, checked, what, stale, left))}
		}
		fmt.Fprintf(e.stdout, "%s: up to date (%d %s)\n", o.Out, checked, what)
		return nil
	}
	return runEmit(ctx, e, o)
}

// onlyUnrecordedFlags reports whether diff was given no flag but those
// emit does not record (--nvcc): then it checks a directory by the
// command its index records.
func onlyUnrecordedFlags(changed map[string]bool) bool {
	for n := range changed {
		if !unrecordedFlags[n] {
			return false
		}
	}
	return true
}

// recordedEmit returns the options of the emit whose index diff without
// flags checks: in the current directory, else in o.Out (emit's default
// -o, as diff got no -o). Its recorded -o and a relative --tuned are
// relative to the index's directory. o's --nvcc carries over. It returns
// the options and the index's directory.
func recordedEmit(e *env, o *emitOptions) (*emitOptions, string, error) {
	dir := ""
	for _, d := range []string{".", o.Out} {
		if _, err := os.Stat(filepath.Join(d, gen.IndexFile)); err == nil {
			dir = d
			break
		}
	}
	if dir == "" {
		return nil, "", usageError(fmt.Errorf("diff: no %s in the current directory or in %s: nothing emitted here to check; run diff in the directory emit wrote (a //go:generate swigen emit -o . package), or pass emit's flags", gen.IndexFile, o.Out))
	}
	path := filepath.Join(dir, gen.IndexFile)
	idx, err := gen.ReadIndex(dir)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, "", fmt.Errorf("diff: %w", err)
	case err != nil:
		return nil, "", usageError(fmt.Errorf("diff: %w: not an index swigen emit wrote; pass emit's flags", err))
	}
	if len(idx.Command) < 2 || idx.Command[0] != "swigen" || idx.Command[1] != "emit" {
		return nil, "", usageError(fmt.Errorf("diff: %s records no swigen emit command (the gen library or an older swigen wrote it); pass emit's flags, or run emit again to record one", path))
	}
	ro := &emitOptions{}
	f := pflag.NewFlagSet("emit", pflag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.Usage = func() {}
	addEmitFlags(f, ro)
	if err := f.Parse(idx.Command[2:]); err != nil {
		return nil, "", usageError(fmt.Errorf("diff: %s: recorded command %q: %w", path, strings.Join(idx.Command, " "), err))
	}
	if f.NArg() > 0 {
		return nil, "", usageError(fmt.Errorf("diff: %s: recorded command %q: unexpected arguments %q", path, strings.Join(idx.Command, " "), f.Args()))
	}
	ro.readFlags(f)
	ro.Out = fromIndexDir(dir, ro.Out)
	ro.Tuned = fromIndexDir(dir, ro.Tuned)
	if o.Changed["nvcc"] {
		ro.NVCC = o.NVCC
	}
	fmt.Fprintf(e.stderr, "diff: checking %s against the emit its %s records: %s\n", dir, gen.IndexFile, strings.Join(idx.Command, " "))
	return ro, dir, nil
}

// fromIndexDir turns a path recorded in the index of dir (relative to dir,
// slash-separated, or absolute) into one relative to the working
// directory.
func fromIndexDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// diffLeftovers lists the files the previous emit into dir wrote that this
// emit would not: stale, as emit removes them. With srcOnly only kernel
// sources and manifests count, as the rest (cubins, reports) of a
// compiled emit on disk are not laid out without a compiler.
func diffLeftovers(dir string, res *gen.EmitResult, srcOnly bool) []staleFile {
	counts := func(string) bool { return true }
	if srcOnly {
		idx, err := gen.ReadIndex(dir)
		if err != nil {
			return nil // res.Removed and res.Kept come from this index: empty
		}
		src := map[string]bool{}
		for _, k := range idx.Kernels {
			src[k.Source], src[k.Manifest] = true, true
		}
		counts = func(name string) bool { return src[name] }
	}
	var out []staleFile
	for _, n := range res.Removed {
		if counts(n) {
			out = append(out, staleFile{n, "left over", "emit removes it"})
		}
	}
	for _, n := range res.Kept {
		if counts(n) {
			out = append(out, staleFile{n, "left over", "edited since, so emit keeps it: delete it unless it is yours"})
		}
	}
	slices.SortFunc(out, func(a, b staleFile) int { return strings.Compare(a.name, b.name) })
	return out
}

// staleSummary is diff's error when anything is stale: the counts, one
// line per stale file, and how to bring the directory up to date.
func staleSummary(o *emitOptions, recorded string, checked int, what string, stale, left []staleFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff: %s: %d of %d %s stale", o.Out, len(stale), checked, what)
	if len(left) > 0 {
		fmt.Fprintf(&b, ", %d left over from the previous emit", len(left))
	}
	b.WriteString(":\n")
	for _, f := range append(slices.Clone(stale), left...) {
		fmt.Fprintf(&b, "  %-9s %s", f.how, f.name)
		if f.note != "" {
			fmt.Fprintf(&b, " (%s)", f.note)
		}
		b.WriteString("\n")
	}
	switch {
	case recorded != "":
		cmdline, _ := emitCommand(o) // it worked for the dry run
		fmt.Fprintf(&b, "to regenerate, run go generate or, in %s, %s", recorded, strings.Join(cmdline, " "))
	default:
		b.WriteString("to regenerate, run swigen emit with the same flags")
		if _, err := os.Stat(filepath.Join(o.Out, gen.IndexFile)); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(&b, " (%s holds no %s: no emit wrote it; without flags, diff checks the directory it runs in)", o.Out, gen.IndexFile)
		}
	}
	return b.String()
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
// report of a difference ("" when they are equal) and how it differs:
// "changed" or "missing". Cubins are compared by sha256, a missing file
// is one line, everything else is a unified diff.
func diffFile(dir string, f gen.OutputFile) (text, how string, err error) {
	path := filepath.Join(dir, f.Name)
	disk, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return "", "", err
	}
	if !missing && bytes.Equal(disk, f.Data) {
		return "", "", nil
	}
	want := sha256.Sum256(f.Data)
	if missing {
		return fmt.Sprintf("%s: missing on disk; rendered %d bytes, sha256 %s\n", path, len(f.Data), hex.EncodeToString(want[:])), "missing", nil
	}
	if strings.HasSuffix(f.Name, ".cubin") {
		got := sha256.Sum256(disk)
		return fmt.Sprintf("cubin %s: sha256 %s on disk, %s rendered\n", path, hex.EncodeToString(got[:]), hex.EncodeToString(want[:])), "changed", nil
	}
	return textdiff.Unified(path, path+" (rendered)", string(disk), string(f.Data)), "changed", nil
}
