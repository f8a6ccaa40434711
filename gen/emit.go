package gen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/swigen/swigen/gen/toolchain"
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
	// Progress, when set, receives one line per render and compile step.
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
}

// Index is the content of manifest.json: every kernel of one emit, sorted
// by name. It carries no timestamps so that re-emitting is byte-stable.
type Index struct {
	Toolchain string       `json:"toolchain,omitempty"`
	Kernels   []IndexEntry `json:"kernels"`
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
}

// Emit renders every config, compiles each one when o.Toolchain is set, and
// only when all of that succeeded writes, per kernel, <name>.cu, <name>.json
// (the manifest) and, when compiled, <name>.<arch>.cubin and
// <name>.report.json, plus the index manifest.json and the files of
// o.ExtraFiles (the Go bindings). With o.DryRun it stops after laying the
// files out in memory (EmitResult.Output). On any render or compile
// failure nothing is written and the error joins one error per failing
// config. Emit is RenderAll followed by EmitArtifacts.
func Emit(ctx context.Context, cfgs []tiling.Config, o EmitOptions) (*EmitResult, error) {
	if o.Dir == "" {
		return nil, errors.New("emit: empty output directory")
	}
	arts, err := renderAll(cfgs, o.Progress)
	if err != nil {
		return nil, err
	}
	return EmitArtifacts(ctx, arts, o)
}

// RenderAll renders every config in memory, sorted by name, exact
// duplicates dropped. Two different configs with one name, or any config
// that fails to render, is an error; the errors of all failing configs are
// joined. A caller can render everything first, to report bad configs
// before looking for a compiler, then hand the artifacts to EmitArtifacts.
func RenderAll(cfgs []tiling.Config) ([]*Artifact, error) { return renderAll(cfgs, nil) }

func renderAll(cfgs []tiling.Config, progress io.Writer) ([]*Artifact, error) {
	cfgs, err := uniqueByName(cfgs)
	if err != nil {
		return nil, err
	}
	arts := make([]*Artifact, len(cfgs))
	var errs []error
	for i, c := range cfgs {
		progressf(progress, nil, "render %s\n", c.Name())
		a, err := Render(c)
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
// mtime stays.
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
	files, err := emitFiles(kernels, o)
	if err != nil {
		return nil, err
	}
	res := &EmitResult{Dir: o.Dir, Kernels: kernels, Output: files}
	if o.DryRun {
		return res, nil
	}
	fsys := o.fs
	if fsys == nil {
		fsys = osFS{}
	}
	if res.Files, err = writeAll(fsys, o.Dir, files); err != nil {
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
		mu   sync.Mutex // guards o.Progress
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
			progressf(o.Progress, &mu, "compile %s\n", a.Name)
			co := o.Compile
			co.Arch = string(a.Config.Arch)
			start := time.Now()
			b, err := o.Toolchain.Compile(ctx, a.Name, a.Source, co)
			if err != nil {
				errs[i] = nameErr(a.Name, err)
				return
			}
			kernels[i].Build = b
			kernels[i].CompileTime = time.Since(start)
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
func emitFiles(kernels []EmittedKernel, o EmitOptions) ([]OutputFile, error) {
	var files []OutputFile
	idx := Index{Kernels: []IndexEntry{}}
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
			Name:       a.Name,
			Kernel:     string(a.Config.Kernel),
			Arch:       a.Config.Arch,
			ConfigHash: a.Manifest.ConfigHash,
			Source:     a.Name + ".cu",
			Manifest:   a.Name + ".json",
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
	if o.ExtraFiles != nil {
		extra, err := o.ExtraFiles(idx, kernels)
		if err != nil {
			return nil, fmt.Errorf("emit: %w", err)
		}
		files = append(files, extra...)
	}
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

func progressf(w io.Writer, mu *sync.Mutex, format string, args ...any) {
	if w == nil {
		return
	}
	if mu != nil {
		mu.Lock()
		defer mu.Unlock()
	}
	fmt.Fprintf(w, format, args...)
}
