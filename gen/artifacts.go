package gen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/internal/readfile"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// IndexFile is the name of the index Emit writes next to the kernels.
const IndexFile = "manifest.json"

// EmitOptions controls Emit.
type EmitOptions struct {
	// Dir is the output directory; it is created when missing.
	Dir string
	// Toolchain compiles each kernel to a cubin. Nil writes sources and
	// manifests only.
	Toolchain *toolchain.Toolchain
	// Compile is passed to Toolchain.Compile; its Arch is set per config.
	Compile toolchain.CompileOptions
	// Jobs bounds concurrent compiles; 0 means GOMAXPROCS.
	Jobs int
	// Progress, when set, receives one line per compile as it finishes, in
	// the order they finish: "compiled I/N NAME (TIME)", TIME "cache hit"
	// for a build cache hit, then one line per arch of the elementwise
	// module. swigen emit sets it only when stderr is a terminal.
	Progress io.Writer
	// ExtraFiles, when set, is called once every config has rendered (and
	// compiled), with the index and the kernels in index order. The files
	// it returns are laid out and written together with the kernels' files,
	// under the same all-or-nothing rule; its error means nothing is
	// written. The Go bindings (gobind.Hook) come in this way.
	ExtraFiles func(idx Index, kernels []EmittedKernel) ([]OutputFile, error)
	// DryRun renders, compiles and lays out every file in memory but writes
	// nothing: EmitResult.Output holds the files, Files stays empty.
	// `swigen diff` compares that against the disk.
	DryRun bool
	// Command is recorded in the index as Index.Command: the command line
	// that makes this emit again, run in the output directory (so it must
	// not name the directory by an absolute path). Nil records none.
	Command []string
	// Dispatch is the dispatch plans of the emit's fused kernels whose
	// unfused path ships with them (the gemm kernels are among the
	// configs; the elementwise module is compiled and written for their
	// archs). They go into the index as Index.Dispatch.
	Dispatch []manifest.Dispatch
	// UnfusedOnly names the configs emitted only as a dispatch plan's
	// unfused gemm (not asked for): the index marks them, and the Go
	// bindings give them no arch-dispatching launcher of their own.
	UnfusedOnly []string
	// Force lets the emit replace an index or bindings file in Dir that no
	// emit wrote (by default an error naming the file).
	Force bool

	// fs is the file system the files are written with; nil is the OS's.
	// Tests set it to make a write or rename fail part-way.
	fs fileSys
}

// FileStatus says what Emit did with one output file.
type FileStatus string

// The file statuses.
const (
	FileWritten   FileStatus = "written"
	FileUnchanged FileStatus = "unchanged" // same bytes on disk; left alone so its mtime stays
)

// EmittedFile is one output file of Emit.
type EmittedFile struct {
	Path   string // Dir joined with the file name
	Status FileStatus
	Size   int
}

// EmittedKernel is one config's outcome.
type EmittedKernel struct {
	Artifact *Artifact
	// Build is nil when no toolchain was given.
	Build *toolchain.BuildResult
	// CompileTime is the wall time of the compile (or cache lookup).
	CompileTime time.Duration
}

// EmitResult lists what Emit produced, kernels and files sorted by name.
type EmitResult struct {
	Dir     string
	Kernels []EmittedKernel
	Files   []EmittedFile
	// Output is every file Emit laid out, in write order (what Files
	// reports on, and all of it with DryRun).
	Output []OutputFile
	// Removed names the files of the previous emit into Dir (by its
	// index's Files) that this emit does not write and removed; with
	// DryRun, those it would remove. Sorted, relative to Dir.
	Removed []string
	// Kept names the files of the previous emit that this emit does not
	// write but left in place, because their bytes are no longer the ones
	// that emit wrote: someone edited them, so they are not emit's to
	// delete. Sorted, relative to Dir.
	Kept []string
}

// Index is the content of manifest.json: every kernel of one emit, sorted
// by name. It carries no timestamps so that re-emitting is byte-stable.
type Index struct {
	Toolchain string `json:"toolchain,omitempty"`
	// Command is EmitOptions.Command: what `swigen diff` without flags
	// runs again to check the directory.
	Command []string     `json:"command,omitempty"`
	Kernels []IndexEntry `json:"kernels"`
	// Dispatch is EmitOptions.Dispatch: how a loader runs each fused
	// kernel's calls (manifest.Dispatch).
	Dispatch []manifest.Dispatch `json:"dispatch,omitempty"`
	// Elementwise names the elementwise module's files, per arch of a
	// dispatch plan.
	Elementwise []ElementwiseEntry `json:"elementwise,omitempty"`
	// Files is every file the emit wrote but the index itself, sorted by
	// name, with the sha256 of its bytes: the next emit into the directory
	// removes those it does not write, and only while their bytes are
	// these. It is filled in after ExtraFiles runs.
	Files []IndexedFile `json:"files,omitempty"`
}

// IndexedFile is one file of an emit, relative to the index.
type IndexedFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// IndexEntry names the files of one kernel, relative to the index.
type IndexEntry struct {
	Name        string      `json:"name"`
	Kernel      string      `json:"kernel"`
	Arch        tiling.Arch `json:"arch"`
	ConfigHash  string      `json:"config_hash"`
	Source      string      `json:"source"`
	Manifest    string      `json:"manifest"`
	Cubin       string      `json:"cubin,omitempty"`
	CubinSHA256 string      `json:"cubin_sha256,omitempty"`
	Report      string      `json:"report,omitempty"`
	// UnfusedOnly marks a gemm kernel that ships only as a dispatch plan's
	// unfused path (EmitOptions.UnfusedOnly).
	UnfusedOnly bool `json:"unfused_only,omitempty"`
}

// Emit renders every config, compiles each one when o.Toolchain is set, and
// only when all of that succeeded writes, per kernel, <name>.cu, <name>.json
// (the manifest) and, when compiled, <name>.<arch>.cubin and
// <name>.report.json, plus the index manifest.json and the files of
// o.ExtraFiles (the Go bindings). Files the previous emit into o.Dir wrote
// (by its index) that this one does not are removed, unless edited since
// (EmitResult.Removed, EmitResult.Kept). With o.DryRun it stops after
// laying the files out in memory (EmitResult.Output). On any render or
// compile failure nothing is written and the error joins one error per
// failing config. Emit is RenderAll followed by EmitArtifacts.
func Emit(ctx context.Context, cfgs []tiling.Config, o EmitOptions) (*EmitResult, error) {
	if o.Dir == "" {
		return nil, errors.New("emit: empty output directory")
	}
	arts, err := RenderAll(cfgs)
	if err != nil {
		return nil, err
	}
	return EmitArtifacts(ctx, arts, o)
}

// RenderAll renders every config in memory, sorted by name, exact
// duplicates dropped. Two different configs with one name, or any config
// that fails tiling.Check or fails to render, is an error; the errors of all failing configs are
// joined. A caller can render everything first, to report bad configs
// before looking for a compiler, then hand the artifacts to EmitArtifacts.
func RenderAll(cfgs []tiling.Config) ([]*Artifact, error) {
	cfgs, err := uniqueByName(cfgs)
	if err != nil {
		return nil, err
	}
	arts := make([]*Artifact, len(cfgs))
	var errs []error
	for i, c := range cfgs {
		k, err := tiling.Check(c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		a, err := Render(k)
		if err != nil {
			errs = append(errs, nameErr(c.Name(), err))
			continue
		}
		arts[i] = a
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return arts, nil
}

// EmitArtifacts compiles (when o.Toolchain is set), lays out and writes
// rendered kernels as Emit does; arts must come from RenderAll (sorted by
// name, one per name).
//
// Writing is all or nothing: every changed file is first written into a
// hidden staging directory inside o.Dir (the same file system), then
// renamed into place, each file it replaces kept as a backup until all are
// in. On any failure the renamed files are removed, the backups renamed
// back (same bytes, same mtime), the staging directory and any output
// directory Emit created are removed, and the error says what failed.
// Files whose bytes are already on disk are left untouched, so their
// mtime stays. The previous emit's files that this one does not write
// (EmitResult.Removed) are moved into a staging directory of their own
// first and deleted only when everything else is in; a failure moves them
// back.
func EmitArtifacts(ctx context.Context, arts []*Artifact, o EmitOptions) (*EmitResult, error) {
	if o.Dir == "" {
		return nil, errors.New("emit: empty output directory")
	}
	kernels := make([]EmittedKernel, len(arts))
	for i, a := range arts {
		if a == nil {
			return nil, fmt.Errorf("emit: artifact %d of %d is nil", i, len(arts))
		}
		kernels[i].Artifact = a
	}
	if o.Toolchain != nil {
		if err := compileAll(ctx, kernels, o); err != nil {
			return nil, err
		}
	}
	arches, err := dispatchArches(o.Dispatch, kernels)
	if err != nil {
		return nil, err
	}
	ew, err := compileElementwise(ctx, arches, o)
	if err != nil {
		return nil, err
	}
	efiles, eentries := elementwiseFiles(arches, ew)
	files, err := emitFiles(kernels, efiles, eentries, o)
	if err != nil {
		return nil, err
	}
	res := &EmitResult{Dir: o.Dir, Kernels: kernels, Output: files}
	fsys := o.fs
	if fsys == nil {
		fsys = osFS{}
	}
	if o.DryRun {
		old, _ := readIndex(fsys, o.Dir) // unreadable: names nothing
		if res.Removed, res.Kept, err = leftovers(fsys, o.Dir, old, files); err != nil {
			return nil, err
		}
		return res, nil
	}
	wo := writeOptions{guarded: guardedFiles(files, kernels, efiles), force: o.Force}
	if res.Files, res.Removed, res.Kept, err = commit(fsys, o.Dir, files, wo); err != nil {
		return nil, err
	}
	return res, nil
}

// uniqueByName sorts cfgs by name and drops exact duplicates; two different
// configs with one name would overwrite each other's files, so that is an
// error.
func uniqueByName(cfgs []tiling.Config) ([]tiling.Config, error) {
	type named struct {
		name string
		cfg  tiling.Config
	}
	ns := make([]named, len(cfgs))
	for i, c := range cfgs {
		ns[i] = named{c.Name(), c}
	}
	slices.SortStableFunc(ns, func(a, b named) int { return strings.Compare(a.name, b.name) })
	out := make([]tiling.Config, 0, len(ns))
	var errs []error
	for i, n := range ns {
		if i > 0 && ns[i-1].name == n.name {
			if ns[i-1].cfg != n.cfg {
				errs = append(errs, fmt.Errorf("emit %s: two different configs have this name", n.name))
			}
			continue
		}
		out = append(out, n.cfg)
	}
	return out, errors.Join(errs...)
}

// compileAll compiles every kernel in memory, at most o.Jobs at a time.
// Results land by index, so the order of completion does not matter.
func compileAll(ctx context.Context, kernels []EmittedKernel, o EmitOptions) error {
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var (
		mu   sync.Mutex // guards o.Progress and done
		done int
		wg   sync.WaitGroup
		sem  = make(chan struct{}, jobs)
		errs = make([]error, len(kernels))
	)
	for i := range kernels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			a := kernels[i].Artifact
			if err := ctx.Err(); err != nil {
				errs[i] = fmt.Errorf("emit %s: %w", a.Name, err)
				return
			}
			co := o.Compile
			co.Arch, co.Include = string(a.Config.Arch), a.Include
			start := time.Now()
			b, err := o.Toolchain.Compile(ctx, a.Name, a.Source, co)
			if err != nil {
				errs[i] = nameErr(a.Name, err)
				mu.Lock()
				done++
				progressf(o.Progress, "failed %d/%d %s\n", done, len(kernels), a.Name)
				mu.Unlock()
				return
			}
			kernels[i].Build = b
			kernels[i].CompileTime = time.Since(start)
			mu.Lock()
			done++
			progressf(o.Progress, "compiled %d/%d %s (%s)\n", done, len(kernels), a.Name, compileTime(b, kernels[i].CompileTime))
			mu.Unlock()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// OutputFile is one file of an emit, laid out in memory.
type OutputFile struct {
	Name string // relative to the output directory, no separators
	Data []byte
}

// emitFiles lays out every output file in memory, in a fixed order: per
// kernel its files, then the extra files, then the index.
func emitFiles(kernels []EmittedKernel, efiles []OutputFile, eentries []ElementwiseEntry, o EmitOptions) ([]OutputFile, error) {
	var files []OutputFile
	idx := Index{Command: o.Command, Kernels: []IndexEntry{}, Dispatch: o.Dispatch, Elementwise: eentries}
	if o.Toolchain != nil {
		idx.Toolchain = o.Toolchain.Version
	}
	for _, k := range kernels {
		a := k.Artifact
		man, err := marshalJSON(a.Manifest)
		if err != nil {
			return nil, fmt.Errorf("emit %s: manifest: %w", a.Name, err)
		}
		e := IndexEntry{
			Name:        a.Name,
			Kernel:      string(a.Config.Kernel),
			Arch:        a.Config.Arch,
			ConfigHash:  a.Manifest.ConfigHash,
			Source:      a.Name + ".cu",
			Manifest:    a.Name + ".json",
			UnfusedOnly: slices.Contains(o.UnfusedOnly, a.Name),
		}
		files = append(files, OutputFile{e.Source, a.Source}, OutputFile{e.Manifest, man})
		if b := k.Build; b != nil {
			rep, err := marshalJSON(b.Report)
			if err != nil {
				return nil, fmt.Errorf("emit %s: build report: %w", a.Name, err)
			}
			sum := sha256.Sum256(b.Cubin)
			e.Cubin = a.Name + "." + string(a.Config.Arch) + ".cubin"
			e.CubinSHA256 = hex.EncodeToString(sum[:])
			e.Report = a.Name + ".report.json"
			files = append(files, OutputFile{e.Cubin, b.Cubin}, OutputFile{e.Report, rep})
		}
		idx.Kernels = append(idx.Kernels, e)
	}
	lib, err := libraryFiles(kernels)
	if err != nil {
		return nil, err
	}
	files = append(files, lib...)
	files = append(files, efiles...)
	if o.ExtraFiles != nil {
		extra, err := o.ExtraFiles(idx, kernels)
		if err != nil {
			return nil, fmt.Errorf("emit: %w", err)
		}
		files = append(files, extra...)
	}
	for _, f := range files {
		sum := sha256.Sum256(f.Data)
		idx.Files = append(idx.Files, IndexedFile{Name: f.Name, SHA256: hex.EncodeToString(sum[:])})
	}
	slices.SortFunc(idx.Files, func(a, b IndexedFile) int { return strings.Compare(a.Name, b.Name) })
	data, err := marshalJSON(idx)
	if err != nil {
		return nil, fmt.Errorf("emit: index: %w", err)
	}
	files = append(files, OutputFile{IndexFile, data})
	// Extra files must not overwrite a kernel's or the index, nor escape
	// the output directory.
	seen := map[string]bool{}
	for _, f := range files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || f.Name == "." || f.Name == ".." {
			return nil, fmt.Errorf("emit: output file name %q: must be a plain file name", f.Name)
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("emit: output file %s: laid out twice", f.Name)
		}
		seen[f.Name] = true
	}
	return files, nil
}

// libraryFiles are the CUDA library's headers when a kernel is a thin unit
// (Artifact.Include), each once, by the names its #include lines use, so the
// emitted .cu files compile where they lie; none otherwise.
func libraryFiles(kernels []EmittedKernel) ([]OutputFile, error) {
	for _, k := range kernels {
		inc := k.Artifact.Include
		if inc == nil {
			continue
		}
		tree, err := readfile.Tree(inc)
		if err != nil {
			return nil, fmt.Errorf("emit: CUDA library: %w", err)
		}
		files := make([]OutputFile, len(tree))
		for i, f := range tree {
			files[i] = OutputFile{f.Path, f.Data}
		}
		return files, nil
	}
	return nil, nil
}

// ReadIndex reads the index of the emit that wrote dir.
func ReadIndex(dir string) (*Index, error) {
	return readIndex(osFS{}, dir)
}

func readIndex(fsys fileSys, dir string) (*Index, error) {
	path := filepath.Join(dir, IndexFile)
	b, err := fsys.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	return &idx, nil
}

// leftovers returns the files the previous emit into dir wrote, by its
// index's Files, that this emit (files) does not write: in remove those
// whose bytes are still the ones the index records, in keep those edited
// since. Names gone from the disk, or no longer regular files, are in
// neither: a directory or link there is not something emit made. An
// index that cannot be read or parsed names nothing: emit replaces it
// and removes nothing.
func leftovers(fsys fileSys, dir string, old *Index, files []OutputFile) (remove, keep []string, err error) {
	if old == nil {
		return nil, nil, nil
	}
	writes := map[string]bool{IndexFile: true}
	for _, f := range files {
		writes[f.Name] = true
	}
	for _, f := range old.Files {
		name := f.Name
		// A hand-made or damaged index must not reach outside dir, nor
		// into a staging directory.
		if writes[name] || name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.HasPrefix(name, stagePrefix) {
			continue
		}
		writes[name] = true // each name once
		path := filepath.Join(dir, name)
		fi, err := fsys.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := fsys.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("emit: previous output %s: %w", path, err)
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) == f.SHA256 {
			remove = append(remove, name)
		} else {
			keep = append(keep, name)
		}
	}
	slices.Sort(remove)
	slices.Sort(keep)
	return remove, keep, nil
}

// guardedFiles names the files of an emit that are not a kernel's, the
// elementwise module's or the CUDA library's (whose names are swigen's
// own, the library's versioned swigen_v1_*): the index and the bindings,
// names a user's own file may have.
func guardedFiles(files []OutputFile, kernels []EmittedKernel, efiles []OutputFile) map[string]bool {
	g := map[string]bool{}
	for _, f := range files {
		g[f.Name] = true
	}
	for _, k := range kernels {
		if inc := k.Artifact.Include; inc != nil {
			for name := range g {
				if _, err := fs.Stat(inc, name); err == nil { // a library file
					delete(g, name)
				}
			}
		}
	}
	for _, f := range efiles {
		delete(g, f.Name)
	}
	for _, k := range kernels {
		n := k.Artifact.Name
		delete(g, n+".cu")
		delete(g, n+".json")
		delete(g, n+".report.json")
		delete(g, n+"."+string(k.Artifact.Config.Arch)+".cubin")
	}
	return g
}

// marshalJSON is the one JSON style of emitted files: two-space indent and a
// trailing newline, so files diff and cat cleanly.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// nameErr makes err name the failing config, without repeating the name
// when render or compile already put it in the message.
func nameErr(name string, err error) error {
	if strings.Contains(err.Error(), name) {
		return err
	}
	return fmt.Errorf("emit %s: %w", name, err)
}

// progressf writes one progress line to w, when set; concurrent callers
// hold a lock.
func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// compileTime is how a compile's time reads in progress lines and emit's
// table: "cache hit", or the wall time to 10 ms.
func compileTime(b *toolchain.BuildResult, d time.Duration) string {
	if b.CacheHit {
		return "cache hit"
	}
	return d.Round(10 * time.Millisecond).String()
}
