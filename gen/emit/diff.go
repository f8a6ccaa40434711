package emit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/swigen/swigen/gen"
)

// StaleFile is one file Diff found out of date: its name, a word for how
// (changed, missing, left over) and, for a left-over file, what emit does
// with it.
type StaleFile struct {
	Name, How, Note string
}

// DiffReport is what Diff found in an output directory.
type DiffReport struct {
	Dir      string   // the output directory checked
	Recorded string   // the directory whose index gave the emit, when diff had no flags
	Diffs    []string // the report of each stale file, in output order
	Stale    []StaleFile
	Left     []StaleFile // left over from the previous emit
	Checked  int         // files compared
	What     string      // what was compared, for the summary
	command  []string    // the emit run again, when Recorded is set
	done     bool        // every file was compared
}

// UpToDate reports whether every file compared is up to date.
func (d *DiffReport) UpToDate() bool { return d.done && len(d.Stale)+len(d.Left) == 0 }

// Diff is swigen diff: it runs the emit o asks for in memory (writing
// nothing, the build cache included) and compares every file it lays out
// with o.Out's. Given no flag but --nvcc, it runs the emit that the index
// of the current directory or of o.Out records. Notes go to log. On an
// error part-way the report holds the diffs found so far.
func Diff(ctx context.Context, o *Options, log io.Writer) (*DiffReport, error) {
	d := &DiffReport{}
	log = orDiscard(log)
	if o.OnlyUnrecordedFlags() {
		ro, dir, err := recordedEmit(o, log)
		if err != nil {
			return nil, err
		}
		o, d.Recorded = ro, dir
	}
	res, tc, err := dryRun(ctx, o, log)
	if err != nil {
		return nil, err
	}
	if d.Recorded != "" {
		d.command, _ = Command(o) // it worked for the dry run
	}
	d.Dir = o.Out
	// diff --no-compile checks the sources against a directory that may
	// hold a compiled emit; an emit recorded with --no-compile is all
	// sources, so everything is compared.
	srcOnly := tc == nil && d.Recorded == ""
	for _, f := range res.Output {
		if skipDiff(f.Name, srcOnly, res) {
			continue
		}
		d.Checked++
		text, how, err := diffFile(o.Out, f)
		if err != nil {
			return d, fmt.Errorf("diff: %w", err)
		}
		if text != "" {
			d.Stale = append(d.Stale, StaleFile{Name: f.Name, How: how})
			d.Diffs = append(d.Diffs, text)
		}
	}
	d.Left = diffLeftovers(o.Out, res, srcOnly)
	d.What = "files"
	if srcOnly {
		d.What = "sources and manifests (--no-compile: cubins, index and Go and Python bindings not checked)"
	}
	d.done = true
	return d, nil
}

// recordedEmit returns the options of the emit whose index diff without
// flags checks: in the current directory, else in o.Out (emit's default
// -o, as diff got no -o). Its recorded -o and a relative --tuned are
// relative to the index's directory. o's --nvcc and TunedConfig carry
// over. It returns the options and the index's directory.
func recordedEmit(o *Options, log io.Writer) (*Options, string, error) {
	dir := ""
	for _, d := range []string{".", o.Out} {
		if _, err := os.Stat(filepath.Join(d, gen.IndexFile)); err == nil {
			dir = d
			break
		}
	}
	if dir == "" {
		return nil, "", usage(fmt.Errorf("diff: no %s in the current directory or in %s: nothing emitted here to check; run diff in the directory emit wrote (a //go:generate swigen emit -o . package), or pass emit's flags", gen.IndexFile, o.Out))
	}
	path := filepath.Join(dir, gen.IndexFile)
	idx, err := gen.ReadIndex(dir)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, "", fmt.Errorf("diff: %w", err)
	case err != nil:
		return nil, "", usage(fmt.Errorf("diff: %w: not an index swigen emit wrote; pass emit's flags", err))
	}
	if len(idx.Command) < 2 || idx.Command[0] != "swigen" || idx.Command[1] != "emit" {
		return nil, "", usage(fmt.Errorf("diff: %s records no swigen emit command (the gen library or an older swigen wrote it); pass emit's flags, or run emit again to record one", path))
	}
	ro := &Options{}
	f := pflag.NewFlagSet("emit", pflag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.Usage = func() {}
	AddFlags(f, ro)
	if err := f.Parse(idx.Command[2:]); err != nil {
		return nil, "", usage(fmt.Errorf("diff: %s: recorded command %q: %w", path, strings.Join(idx.Command, " "), err))
	}
	if f.NArg() > 0 {
		return nil, "", usage(fmt.Errorf("diff: %s: recorded command %q: unexpected arguments %q", path, strings.Join(idx.Command, " "), f.Args()))
	}
	ro.ReadFlags(f)
	ro.Out = fromIndexDir(dir, ro.Out)
	ro.Tuned = fromIndexDir(dir, ro.Tuned)
	ro.TunedConfig = o.TunedConfig
	if o.Changed["nvcc"] {
		ro.NVCC = o.NVCC
	}
	fmt.Fprintf(log, "diff: checking %s against the emit its %s records: %s\n", dir, gen.IndexFile, strings.Join(idx.Command, " "))
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
func diffLeftovers(dir string, res *gen.EmitResult, srcOnly bool) []StaleFile {
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
	var out []StaleFile
	for _, n := range res.Removed {
		if counts(n) {
			out = append(out, StaleFile{n, "left over", "emit removes it"})
		}
	}
	for _, n := range res.Kept {
		if counts(n) {
			out = append(out, StaleFile{n, "left over", "edited since, so emit keeps it: delete it unless it is yours"})
		}
	}
	slices.SortFunc(out, func(a, b StaleFile) int { return strings.Compare(a.Name, b.Name) })
	return out
}
