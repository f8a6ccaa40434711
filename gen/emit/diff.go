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
	"github.com/swigen/swigen/internal/badinput"
	"github.com/swigen/swigen/internal/dirlock"
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
	if o.RecordedMode() {
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
	// Compare while no emit writes into the directory (emits take its
	// lock exclusively); reading takes nothing else.
	if unlock, err := dirlock.RLock(o.Out); err == nil {
		defer unlock()
	}
	if gen.Interrupted(o.Out) {
		fmt.Fprintf(log, "note: %s holds what a killed emit left half-done; the next emit into it rolls that back first\n", o.Out)
	}
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
// flags (or with only -o) checks: in o.Out when -o was given, else in the
// current directory, else in out/ (emit's default -o). The index is data,
// maybe from a pull request: its command is honoured only as emit's flags
// that decide the kernels and files (recordedFlag), its paths must stay
// inside the index's directory (-o is that directory, --tuned a file in
// it), and the compiler is always the caller's (o's --nvcc, or the search
// of the caller's environment), never one the record names. A record
// breaking any rule is bad input. It returns the options and the index's
// directory.
func recordedEmit(o *Options, log io.Writer) (*Options, string, error) {
	dir, err := recordDir(o)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, gen.IndexFile)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, "", usage(fmt.Errorf("diff: %s is not a regular file (%s): diff reads only the package's own files", path, fi.Mode().Type()))
	}
	idx, err := gen.ReadIndex(dir)
	var pe *fs.PathError
	switch {
	case badinput.Is(err):
		return nil, "", usage(fmt.Errorf("diff: %w", err))
	case errors.As(err, &pe):
		return nil, "", fmt.Errorf("diff: %w", err)
	case err != nil:
		return nil, "", usage(fmt.Errorf("diff: %w: not an index swigen emit wrote; pass emit's flags", err))
	}
	if len(idx.Command) < 2 || idx.Command[0] != "swigen" || idx.Command[1] != "emit" {
		return nil, "", usage(fmt.Errorf("diff: %s records no swigen emit command (the gen library or an older swigen wrote it); pass emit's flags, or run emit again to record one", path))
	}
	ro, err := parseRecord(dir, idx.Command[2:])
	if err != nil {
		return nil, "", usage(fmt.Errorf("diff: %s: recorded command %q: %v; the record is not one emit writes: run emit again, or pass diff emit's flags", path, strings.Join(idx.Command, " "), err))
	}
	ro.TunedConfig = o.TunedConfig
	if o.Changed["nvcc"] {
		ro.NVCC = o.NVCC
	}
	fmt.Fprintf(log, "diff: checking %s against the emit its %s records: %s\n", dir, gen.IndexFile, strings.Join(idx.Command, " "))
	return ro, dir, nil
}

// recordDir is the directory whose index diff checks: o.Out when -o was
// given, else the current directory when it holds an index, else o.Out.
func recordDir(o *Options) (string, error) {
	cands := []string{".", o.Out}
	if o.Changed["out"] {
		if err := checkOutDir(o.Out); err != nil {
			return "", usage(fmt.Errorf("diff: %w", err))
		}
		cands = []string{o.Out}
	}
	for _, d := range cands {
		if _, err := os.Lstat(filepath.Join(d, gen.IndexFile)); err == nil {
			return d, nil
		}
	}
	where := "in the current directory or in " + o.Out
	if o.Changed["out"] {
		where = "in " + o.Out
	}
	return "", usage(fmt.Errorf("diff: no %s %s: nothing emitted here to check; run diff in the directory emit wrote (a //go:generate swigen emit -o . package), or pass emit's flags", gen.IndexFile, where))
}

// recordedFlag reports whether a recorded command may set the flag: every
// flag of emit that decides which kernels and files an emit lays out.
// --nvcc is the machine's, not the package's (a record naming one would
// run a program of the record's choosing), and --help is no emit.
func recordedFlag(name string) bool { return !unrecordedFlags[name] }

// parseRecord parses a recorded command's flags (after "swigen emit")
// into options relative to the working directory, enforcing the rules of
// recordedEmit.
func parseRecord(dir string, args []string) (*Options, error) {
	ro := &Options{}
	f := pflag.NewFlagSet("emit", pflag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.Usage = func() {}
	AddFlags(f, ro)
	// Not %w: a recorded --help is pflag.ErrHelp, which must not reach
	// cobra as a request for help.
	if err := f.Parse(args); err != nil {
		return nil, errors.New(err.Error())
	}
	if f.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", f.Args())
	}
	ro.ReadFlags(f)
	for n := range ro.Changed {
		if !recordedFlag(n) {
			return nil, fmt.Errorf("--%s is not a flag a record may set", n)
		}
	}
	if filepath.Clean(filepath.FromSlash(ro.Out)) != "." {
		return nil, fmt.Errorf("--out=%s: a record names its own directory, --out=.", ro.Out)
	}
	ro.Out = dir
	if ro.Tuned != "" {
		p, err := insideDir(dir, ro.Tuned)
		if err != nil {
			return nil, fmt.Errorf("--tuned=%s: %w (a results DB elsewhere is checked by passing diff emit's flags)", ro.Tuned, err)
		}
		ro.Tuned = p
	}
	return ro, nil
}

// insideDir returns p, a path recorded in the index of dir, as a path
// relative to the working directory, when it names something inside dir:
// relative, slash-separated, no "..", and no symlink on the way out of dir.
func insideDir(dir, p string) (string, error) {
	local := filepath.FromSlash(p)
	if filepath.IsAbs(p) || filepath.IsAbs(local) || !filepath.IsLocal(local) {
		return "", errors.New("not a path inside the package")
	}
	full := filepath.Join(dir, local)
	if err := confined(dir, full); err != nil {
		return "", err
	}
	return full, nil
}

// confined checks that path, inside dir by name, is inside dir once
// symlinks are resolved too: of a path that does not exist, its deepest
// existing parent.
func confined(dir, path string) error {
	real, err := filepath.EvalSymlinks(path)
	for p := path; errors.Is(err, fs.ErrNotExist) && filepath.Dir(p) != p; {
		p = filepath.Dir(p)
		real, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s resolves to %s, outside %s", path, real, dir)
	}
	return nil
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
