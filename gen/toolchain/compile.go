package toolchain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swigen/swigen/internal/proc"
	"github.com/swigen/swigen/internal/readfile"
)

// CompileOptions controls Toolchain.Compile.
type CompileOptions struct {
	// Arch is the real target, "sm_90a" or "sm_100a" (any sm_NN[a|f] is
	// passed through as -gencode arch=compute_NN[a|f],code=sm_NN[a|f]).
	Arch string
	// AllowSpills, AllowStack and AllowNotes turn the build check's spill,
	// stack-frame and ptxas-note findings from errors into report entries.
	AllowSpills, AllowStack, AllowNotes bool
	// ExtraFlags are appended to the nvcc .cu -> .ptx command.
	ExtraFlags []string
	// PtxasFlags are appended to the ptxas .ptx -> .cubin command.
	PtxasFlags []string
	// CacheDir holds the build cache; "" means DefaultCacheDir().
	CacheDir string
	// NoCache skips the cache entirely (no lookup, no store).
	NoCache bool
	// CacheReadOnly looks results up in the cache but stores none, so
	// a read-only check (swigen diff) is as fast as a warm emit and still
	// writes nothing.
	CacheReadOnly bool
	// Include is the unit's include tree (gen.Artifact.Include): written
	// beside the source, so its quoted #include lines resolve to it, and
	// part of the cache key; nil for a self-contained source.
	Include fs.FS
}

// BuildResult is one compiled kernel.
type BuildResult struct {
	Name   string
	Cubin  []byte
	PTX    []byte
	Report BuildReport
	// CacheHit is true when the result came from the cache and no compiler ran.
	CacheHit bool
	// Argv is the nvcc .cu -> .ptx command and PtxasArgv the ptxas
	// .ptx -> .cubin command, both run in a scratch directory holding
	// <name>.cu, so the file arguments are relative.
	Argv      []string
	PtxasArgv []string
	// SHA256 is the hex sha256 of Cubin.
	SHA256 string
}

// CompileError is a failed nvcc or ptxas run. The scratch directory with the
// source (and PTX, when ptxas failed) is kept so the repro line works.
type CompileError struct {
	Name       string
	Argv       []string
	Dir        string // working directory of the failed command
	Stderr     string
	ExitCode   int
	SourcePath string
}

func (e *CompileError) Error() string {
	tool := "compiler"
	if len(e.Argv) > 0 {
		tool = filepath.Base(e.Argv[0])
	}
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = "(no output)"
	}
	return fmt.Sprintf("compile %s: %s exited with status %d:\n%s\nsource kept at %s\nrepro: cd %s && %s",
		e.Name, tool, e.ExitCode, msg, e.SourcePath, shellQuote(e.Dir), shellJoin(e.Argv))
}

var archRE = regexp.MustCompile(`^sm_(\d+[af]?)$`)

// gencodeFlags maps "sm_90a" to -gencode arch=compute_90a,code=sm_90a. Only
// the arch-specific (a) or family (f) targets can carry wgmma/tcgen05, but
// plain targets are accepted for simple kernels and tests.
func gencodeFlags(arch string) ([]string, error) {
	m := archRE.FindStringSubmatch(arch)
	if m == nil {
		return nil, fmt.Errorf("arch %q: want sm_<NN>[a|f], e.g. sm_90a or sm_100a", arch)
	}
	return []string{"-gencode", "arch=compute_" + m[1] + ",code=" + arch}, nil
}

// fileStem turns a build name into a safe file name: the name's letters,
// digits, '.', '_' and '-' survive, anything else becomes '_'.
func fileStem(name string) string {
	b := []byte(name)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".")
	if len(s) > 80 {
		s = s[:80]
	}
	if s == "" {
		s = "kernel"
	}
	return s
}

// Compile builds src (CUDA C++) into a cubin for o.Arch in two steps, nvcc
// -ptx then ptxas -v, so the ptxas report is captured exactly. Results are
// cached by content (see CompileOptions.CacheDir); a hit runs no compiler.
//
// On a tool failure it returns a *CompileError. When the cubin builds but the
// build check fails (spills, stack frame or ptxas hazard notes not allowed by
// o), it returns the result together with a *BuildCheckError.
func (t *Toolchain) Compile(ctx context.Context, name string, src []byte, o CompileOptions) (*BuildResult, error) {
	if name == "" {
		return nil, errors.New("compile: empty kernel name")
	}
	if len(src) == 0 {
		return nil, fmt.Errorf("compile %s: empty source", name)
	}
	if t == nil || t.NVCC == "" || t.PTXAS == "" {
		return nil, fmt.Errorf("compile %s: %w", name, ErrNoCompiler)
	}
	gencode, err := gencodeFlags(o.Arch)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	stem := fileStem(name)
	argv := append([]string{t.NVCC, "-ptx"}, gencode...)
	argv = append(argv, "-std=c++17", "-O3", "-lineinfo")
	argv = append(argv, o.ExtraFlags...)
	argv = append(argv, "-o", stem+".ptx", stem+".cu")
	ptxasArgv := []string{t.PTXAS, "-arch=" + o.Arch, "-v", "-lineinfo"}
	ptxasArgv = append(ptxasArgv, o.PtxasFlags...)
	ptxasArgv = append(ptxasArgv, "-o", stem+".cubin", stem+".ptx")

	inc, err := readInclude(o.Include)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	policy := checkPolicy{AllowSpills: o.AllowSpills, AllowStack: o.AllowStack, AllowNotes: o.AllowNotes}
	var cache *buildCache
	var key string
	if !o.NoCache {
		dir := o.CacheDir
		if dir == "" {
			if dir, err = DefaultCacheDir(); err != nil {
				return nil, fmt.Errorf("compile %s: %w", name, err)
			}
		}
		cache = &buildCache{dir: dir}
		key = cacheKey(t.Version, o.Arch, argv[1:], ptxasArgv[1:], src, inc...)
		if r, ok := cache.load(name, key); ok {
			r.CacheHit = true
			return r, r.Report.check(name, policy)
		}
	}

	r, err := t.build(ctx, name, stem, src, inc, argv, ptxasArgv)
	if err != nil {
		return nil, err
	}
	if cache != nil && !o.CacheReadOnly {
		if err := cache.store(name, key, t.Version, r); err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
	}
	return r, r.Report.check(name, policy)
}

// build runs both compiler steps in a fresh scratch directory, removed on
// success and kept on a tool failure for the repro line.
func (t *Toolchain) build(ctx context.Context, name, stem string, src []byte, inc []includeFile, argv, ptxasArgv []string) (_ *BuildResult, err error) {
	dir, release, err := newScratch(stem)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	keep := false
	defer func() { release(keep, err) }()
	srcPath := filepath.Join(dir, stem+".cu")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	// ptxas -lineinfo records the source file's modification time in the
	// cubin's line table; pin it so equal sources give equal cubins.
	if err := os.Chtimes(srcPath, time.Unix(0, 0), time.Unix(0, 0)); err != nil {
		return nil, fmt.Errorf("compile %s: pin mtime: %w", name, err)
	}
	if err := writeInclude(dir, inc); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	// nvcc writes its intermediate tmpxft_* files to TMPDIR: a private one
	// inside the scratch directory goes with it on every exit, an
	// interrupted compile included, instead of staying in the user's.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	env := append(os.Environ(), "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	run := func(argv []string) (string, error) {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		proc.Isolate(cmd)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdout = &stderr // ptxas -v and nvcc both report on either stream
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil {
			return stderr.String(), nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("compile %s: %w", name, ctx.Err())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			keep = true
			return "", &CompileError{Name: name, Argv: argv, Dir: dir, Stderr: stderr.String(),
				ExitCode: ee.ExitCode(), SourcePath: srcPath}
		}
		return "", fmt.Errorf("compile %s: run %s: %w", name, argv[0], err)
	}
	nvccLog, err := run(argv)
	if err != nil {
		return nil, err
	}
	ptxPath := filepath.Join(dir, stem+".ptx")
	ptx, err := readfile.Read(ptxPath, readfile.MaxArtifact)
	if err != nil {
		return nil, fmt.Errorf("compile %s: nvcc wrote no PTX: %w", name, err)
	}
	// With -lineinfo nvcc records the absolute source path in .file
	// directives, which would make every PTX and cubin differ by the scratch
	// directory name; strip it so builds are byte-reproducible.
	ptx = bytes.ReplaceAll(ptx, []byte(`"`+dir+string(filepath.Separator)), []byte(`"`))
	if err := checkSelfContained(ptx, stem+".cu", inc); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	if err := os.WriteFile(ptxPath, ptx, 0o644); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	ptxasLog, err := run(ptxasArgv)
	if err != nil {
		return nil, err
	}
	cubin, err := readfile.Read(filepath.Join(dir, stem+".cubin"), readfile.MaxArtifact)
	if err != nil {
		return nil, fmt.Errorf("compile %s: ptxas wrote no cubin: %w", name, err)
	}
	rep, err := parsePtxasReport(ptxasLog)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	if rep.Arch == "" {
		rep.Arch = strings.TrimPrefix(ptxasArgv[1], "-arch=")
	}
	rep.NVCCLog = nvccLog
	sum := sha256.Sum256(cubin)
	return &BuildResult{
		Name:      name,
		Cubin:     cubin,
		PTX:       ptx,
		Report:    rep,
		Argv:      argv,
		PtxasArgv: ptxasArgv,
		SHA256:    hex.EncodeToString(sum[:]),
	}, nil
}

// ptxFileRE matches a PTX .file directive and captures its path.
var ptxFileRE = regexp.MustCompile(`(?m)^\s*\.file\s+\d+\s+"([^"]*)"`)

// checkSelfContained rejects PTX whose line table names a file other than
// the kernel's own source and the headers of its include tree, which the
// build writes beside it. A call into CUDA header code (e.g. __syncwarp)
// makes ptxas record the header's absolute path and modification time, and
// nvcc name its static functions with a prefix hashed from the build
// directory: the cubin would then differ between machines and installs.
func checkSelfContained(ptx []byte, source string, inc []includeFile) error {
	ok := map[string]bool{source: true}
	for _, f := range inc {
		ok[filepath.FromSlash(f.Path)] = true
	}
	for _, m := range ptxFileRE.FindAllSubmatch(ptx, -1) {
		if f := string(m[1]); !ok[f] {
			return fmt.Errorf("the PTX's line table names %s: a kernel must not use CUDA header code (write the PTX inline, as templates/include/swigen_v1_common.cuh does), or its cubin is not reproducible", f)
		}
	}
	return nil
}

// shellJoin quotes argv for a POSIX shell.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

var shellSafeRE = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafeRE.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
