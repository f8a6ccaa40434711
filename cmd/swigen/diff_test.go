package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/gobind"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

func TestDiffFlags(t *testing.T) {
	t.Parallel()
	var got *emitOptions
	cmd := newDiffCmd(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, func(_ context.Context, o *emitOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--go-package", "kernels", "-o", "k", "--arch", "sm_90a", "--no-compile"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.GoPackage != "kernels" || got.Out != "k" || !got.NoCompile || !slicesEqual(got.Arches, []string{"sm_90a"}) {
		t.Errorf("parsed %+v", got)
	}
}

func slicesEqual(a, b []string) bool { return cmp.Equal(a, b) }

// TestDiffSourcesOnly runs emit then diff without compiling: up to date,
// then stale after an edit and after a deletion.
func TestDiffSourcesOnly(t *testing.T) {
	t.Parallel()
	h90 := heuristic(t, tiling.ArchSM90a)
	renderable(t, h90)
	dir := t.TempDir()
	flags := []string{"--no-compile", "--go-package", "kernels", "--arch", "sm_90a", "--path", "fused", "-o", dir}
	if code, _, errOut := runCLI(t, append([]string{"emit"}, flags...)...); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, gobind.File)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, append([]string{"diff"}, flags...)...)
	if code != exitOK || !strings.Contains(out, "up to date (2 sources and manifests") {
		t.Fatalf("diff of a fresh emit: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	src := filepath.Join(dir, h90.Name()+".cu")
	old, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(old), "__launch_bounds__(", "__launch_bounds__ (", 1)
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, append([]string{"diff"}, flags...)...)
	if code != exitStale {
		t.Fatalf("diff after an edit: exit %d, want %d\nstderr:\n%s", code, exitStale, errOut)
	}
	for _, w := range []string{"--- " + src + "\n", "+++ " + src + " (rendered)\n", "\n-extern \"C\" __global__ void __launch_bounds__ (", "\n+extern \"C\" __global__ void __launch_bounds__("} {
		if !strings.Contains(out, w) {
			t.Errorf("diff output lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(errOut, "1 of 2") {
		t.Errorf("stderr does not count the stale files:\n%s", errOut)
	}

	if err := os.Remove(filepath.Join(dir, h90.Name()+".json")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, append([]string{"diff"}, flags...)...)
	missing := filepath.Join(dir, h90.Name()+".json")
	if code != exitStale || !strings.Contains(out, missing+": missing on disk;") || !strings.Contains(errOut, "missing   "+h90.Name()+".json\n") {
		t.Errorf("diff with a missing manifest: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, h90.Name()+".json")); err == nil {
		t.Error("diff wrote the missing file")
	}
}

// TestDiffCompiled checks cubins (by sha256) and the Go bindings with the
// real compiler; ptxas reports are not compared.
func TestDiffCompiled(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with nvcc; skipped in -short mode")
	}
	if _, err := toolchain.Find(toolchain.FindOptions{}); err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("no CUDA compiler: %v", err)
	}
	h90 := heuristic(t, tiling.ArchSM90a)
	cache := t.TempDir()
	t.Setenv("SWIGEN_CACHE_DIR", cache)
	dir := t.TempDir()
	flags := []string{"--go-package", "kernels", "--arch", "sm_90a", "-o", dir}
	if code, _, errOut := runCLI(t, append([]string{"emit"}, flags...)...); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	// diff is read-only: the build cache emit filled stays as it is, and
	// an empty one, where every compile misses, stays empty.
	cached := treeState(t, cache)
	if len(cached) == 0 {
		t.Fatalf("emit left nothing in the build cache %s", cache)
	}
	empty := filepath.Join(t.TempDir(), "cache")
	defer func() {
		if diff := cmp.Diff(cached, treeState(t, cache)); diff != "" {
			t.Errorf("diff changed the build cache (-before +after):\n%s", diff)
		}
		if _, err := os.Stat(empty); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("diff wrote the build cache %s (stat: %v): %v", empty, err, treeState(t, empty))
		}
	}()
	diff := func() (int, string) {
		code, out, errOut := runCLI(t, append([]string{"diff"}, flags...)...)
		return code, out + errOut
	}
	// The fused kernel (four files), the bindings and the index: the
	// measured plan keeps the seed kernel fused everywhere, so no unfused
	// path ships.
	upToDate := fmt.Sprintf("up to date (%d files)", 6+len(libraryOf(t, h90)))
	if code, out := diff(); code != exitOK || !strings.Contains(out, upToDate) {
		t.Fatalf("diff of a fresh emit: exit %d:\n%s", code, out)
	}
	// Without flags, in the directory, diff runs the recorded emit.
	t.Chdir(dir)
	t.Setenv("SWIGEN_CACHE_DIR", empty)
	if code, out, errOut := runCLI(t, "diff"); code != exitOK || !strings.Contains(out, ".: "+upToDate) {
		t.Fatalf("diff without flags in %s: exit %d:\n%s%s", dir, code, out, errOut)
	}
	t.Setenv("SWIGEN_CACHE_DIR", cache)

	// Reports hold no compile times: a changed one is stale.
	report := filepath.Join(dir, h90.Name()+".report.json")
	good, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(report, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := diff(); code != exitStale {
		t.Errorf("a changed ptxas report: diff exit %d, want %d:\n%s", code, exitStale, out)
	}
	if err := os.WriteFile(report, good, 0o644); err != nil {
		t.Fatal(err)
	}

	cubin := filepath.Join(dir, h90.Name()+".sm_90a.cubin")
	good, err = os.ReadFile(cubin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cubin, append(good, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := diff()
	if code != exitStale || !strings.Contains(out, "cubin "+cubin+": sha256 ") || strings.Contains(out, "@@") {
		t.Errorf("diff with a changed cubin: exit %d:\n%s", code, out)
	}
	if err := os.WriteFile(cubin, good, 0o644); err != nil {
		t.Fatal(err)
	}

	bind := filepath.Join(dir, gobind.File)
	src, err := os.ReadFile(bind)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bind, bytes.Replace(src, []byte("\npackage kernels\n"), []byte("\npackage other\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := diff(); code != exitStale || !strings.Contains(out, "-package other\n+package kernels\n") {
		t.Errorf("diff with edited bindings: exit %d:\n%s", code, out)
	}
}

// TestDiffNoCompiler: without a compiler diff cannot check cubins, so it
// fails (exit 1) unless --no-compile asks for sources only.
func TestDiffNoCompiler(t *testing.T) {
	empty := t.TempDir()
	for _, v := range []string{"PATH", "CUDA_HOME", "SWIGEN_CUDA_VENV", "VIRTUAL_ENV", "HOME"} {
		t.Setenv(v, empty)
	}
	if _, err := toolchain.Find(toolchain.FindOptions{}); !errors.Is(err, toolchain.ErrNoCompiler) {
		t.Skipf("a compiler is still found outside the environment's search paths: %v", err)
	}
	code, _, errOut := runCLI(t, "diff", "--arch", "sm_90a", "-o", t.TempDir())
	if code != exitFailure || !strings.Contains(errOut, "--no-compile") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestEmitBadGoPackage: an invalid --go-package is a usage error (exit 2)
// reported before anything is rendered or written.
func TestEmitBadGoPackage(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"Kernels", "func", "main", "a-b", "k\nimport \"os\""} {
		dir := filepath.Join(t.TempDir(), "out")
		code, _, errOut := runCLI(t, "emit", "--no-compile", "--arch", "sm_90a", "--go-package", pkg, "-o", dir)
		if code != exitUsage || !strings.Contains(errOut, "--go-package") {
			t.Errorf("--go-package %q: exit %d, stderr:\n%s", pkg, code, errOut)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("--go-package %q: %s was created", pkg, dir)
		}
	}
}

// treeState maps every file under root (relative path) to its sha256 and
// modification time; a missing root is empty.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		m[rel] = hex.EncodeToString(sum[:]) + " " + fi.ModTime().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readIndex reads dir's manifest.json, failing t.
func readIndex(t *testing.T, dir string) *gen.Index {
	t.Helper()
	idx, err := gen.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestEmitRecordsCommand: the index records the emit's flags normalized
// (sorted, one --name=value each, -o as ".", no --nvcc), so the same flags
// in another order, form or output directory give the same index.
func TestEmitRecordsCommand(t *testing.T) {
	t.Parallel()
	renderable(t, heuristic(t, tiling.ArchSM90a))
	d1, d2 := t.TempDir(), filepath.Join(t.TempDir(), "k")
	for _, args := range [][]string{
		{"emit", "--no-compile", "--arch", "sm_90a", "--go-package", "kernels", "-o", d1, "--nvcc", "/opt/nvcc", "--l2k=false"},
		{"emit", "-o=" + d2, "--l2k=false", "--go-package=kernels", "--arch=sm_90a", "--no-compile"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitOK {
			t.Fatalf("%q: exit %d:\n%s", args, code, errOut)
		}
	}
	want := []string{"swigen", "emit", "--arch=sm_90a", "--go-package=kernels", "--l2k=false", "--no-compile", "--out=."}
	if diff := cmp.Diff(want, readIndex(t, d1).Command); diff != "" {
		t.Errorf("recorded command (-want +got):\n%s", diff)
	}
	a, _ := os.ReadFile(filepath.Join(d1, gen.IndexFile))
	b, _ := os.ReadFile(filepath.Join(d2, gen.IndexFile))
	if !bytes.Equal(a, b) {
		t.Errorf("the same flags in another order and -o give another index:\n%s\n%s", a, b)
	}
}

// TestDiffRecorded runs diff without flags in a directory emit wrote:
// up to date, stale after an edit (a short summary naming the file), and
// through out/ from its parent; and the usage errors (exit 2) where there
// is no recorded emit to run.
func TestDiffRecorded(t *testing.T) {
	h90 := heuristic(t, tiling.ArchSM90a)
	renderable(t, h90)
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	tuned, _ := writeTunedDB(t, tiling.Shape{M: 16384, K: 768, I: 4608})
	// The DB lies in the package: a record may read nothing outside it.
	db, err := os.ReadFile(tuned)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tune.json"), db, 0o644); err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join("out", "tune.json")
	t.Chdir(root)
	// --tuned relative to where emit runs, not to the output directory,
	// as a go:generate line in a parent package would name it.
	if code, _, errOut := runCLI(t, "emit", "--no-compile", "--go-package", "kernels", "--arch", "sm_90a", "--path", "fused", "--tuned", rel, "-o", "out"); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.go"), []byte("package kernels\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Chdir(dir)
	code, out, errOut := runCLI(t, "diff")
	// The tuned winner is a thin unit as the heuristic's config is.
	files := 4 + len(libraryOf(t, h90))
	upToDate := fmt.Sprintf("up to date (%d files)", files)
	if code != exitOK || !strings.Contains(out, ".: "+upToDate) || !strings.Contains(errOut, "checking . against the emit its manifest.json records: swigen emit --arch=sm_90a --go-package=kernels --no-compile --out=. --path=fused") {
		t.Fatalf("diff without flags: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	src := h90.Name() + ".cu"
	tunedSrc := ""
	for _, k := range readIndex(t, ".").Kernels {
		tunedSrc = k.Source
	}
	if tunedSrc == src {
		t.Fatalf("--tuned did not pick its winner: %s", src)
	}
	good, err := os.ReadFile(tunedSrc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tunedSrc, append(good, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "diff")
	if code != exitStale || !strings.Contains(errOut, fmt.Sprintf("1 of %d files stale:\n  changed   %s\n", files, tunedSrc)) || !strings.Contains(errOut, "to regenerate, run go generate or, in ., swigen emit ") {
		t.Errorf("diff without flags after an edit: exit %d, want %d\nstderr:\n%s", code, exitStale, errOut)
	}
	if n := strings.Count(out+errOut, "\n"); n > 40 {
		t.Errorf("a one-line edit gives %d lines of output", n)
	}
	if err := os.WriteFile(tunedSrc, good, 0o644); err != nil {
		t.Fatal(err)
	}

	// From the parent, without flags, diff checks out/ (emit's default -o).
	t.Chdir(root)
	if code, out, errOut := runCLI(t, "diff"); code != exitOK || !strings.Contains(out, "out: "+upToDate) {
		t.Errorf("diff without flags above out/: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	for _, tt := range []struct {
		name, index, want string
	}{
		{"no index", "", "no manifest.json in the current directory or in out"},
		{"not JSON", "{", "not an index swigen emit wrote"},
		{"no command", `{"kernels": []}`, "records no swigen emit command"},
		{"bad command", `{"command": ["swigen", "emit", "--bogus"], "kernels": []}`, "unknown flag: --bogus"},
		{"help", `{"command": ["swigen", "emit", "--help"], "kernels": []}`, "help requested"},
	} {
		d := t.TempDir()
		if tt.index != "" {
			if err := os.WriteFile(filepath.Join(d, gen.IndexFile), []byte(tt.index), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(d)
		if code, _, errOut := runCLI(t, "diff"); code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, want %d with %q; stderr:\n%s", tt.name, code, exitUsage, tt.want, errOut)
		}
	}
}

// TestEmitArchSwitch: emitting another --arch into a directory removes the
// previous arch's files and nothing else, and diff calls the directory
// stale until then (the old arch's files left over).
func TestEmitArchSwitch(t *testing.T) {
	t.Parallel()
	h90, h100 := heuristic(t, tiling.ArchSM90a), heuristic(t, tiling.ArchSM100a)
	renderable(t, h90, h100)
	dir := t.TempDir()
	emit := func(arch string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "emit", "--no-compile", "--go-package", "kernels", "--arch", arch, "--path", "fused", "-o", dir)
		if code != exitOK {
			t.Fatalf("emit --arch %s: exit %d:\n%s", arch, code, errOut)
		}
		return out
	}
	emit("sm_90a")
	user := map[string]string{"gen.go": "package kernels\n\n//go:generate go tool swigen emit\n", h90.Name() + ".txt": "notes\n"}
	for name, data := range user {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := []string{h90.Name() + ".cu", h90.Name() + ".json"}

	code, out, errOut := runCLI(t, "diff", "--no-compile", "--go-package", "kernels", "--arch", "sm_100a", "-o", dir)
	if code != exitStale {
		t.Fatalf("diff for the new arch before emit: exit %d, want %d:\n%s", code, exitStale, errOut)
	}
	for _, name := range old {
		if !strings.Contains(errOut, "  left over "+name+" (emit removes it)\n") || !strings.Contains(out, filepath.Join(dir, name)+": left over") {
			t.Errorf("diff does not report %s left over:\nstdout:\n%s\nstderr:\n%s", name, out, errOut)
		}
	}

	out = emit("sm_100a")
	if removed := fmt.Sprintf(", %d removed", 2+len(libraryOf(t, h90))); !strings.Contains(out, removed) {
		t.Errorf("emit does not count the removed files:\n%s", out)
	}
	for _, name := range old {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after the switch to sm_100a (stat: %v)", name, err)
		}
	}
	for name, data := range user {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != data {
			t.Errorf("a file emit did not write changed: %s: %q, %v", name, b, err)
		}
	}
	var idx gen.Index
	b, _ := os.ReadFile(filepath.Join(dir, gen.IndexFile))
	if err := json.Unmarshal(b, &idx); err != nil || len(idx.Kernels) != 1 || idx.Kernels[0].Name != h100.Name() {
		t.Errorf("index after the switch: %v\n%s", err, b)
	}
	if code, _, errOut := runCLI(t, "diff", "--no-compile", "--go-package", "kernels", "--arch", "sm_100a", "-o", dir); code != exitOK {
		t.Errorf("diff after the switch: exit %d:\n%s", code, errOut)
	}
}

// TestDiffErrorPrefix: diff's errors say diff, with flags and without, and a missing --nvcc is bad input (exit 2)
// (the toolchain is looked for after the recorded command is read).
func TestDiffErrorPrefix(t *testing.T) {
	code, _, errOut := runCLI(t, "diff", "--nvcc", "/nonexistent/nvcc", "--arch", "sm_90a", "-o", t.TempDir())
	if code != exitUsage || !strings.Contains(errOut, "swigen: diff: find toolchain") || strings.Contains(errOut, "emit:") {
		t.Errorf("diff --nvcc /nonexistent/nvcc: exit %d, stderr:\n%s", code, errOut)
	}
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, gen.IndexFile), []byte(`{"command": ["swigen", "emit", "--arch=sm_90a", "--out=."], "kernels": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(d)
	code, _, errOut = runCLI(t, "diff", "--nvcc", "/nonexistent/nvcc")
	if code != exitUsage || !strings.Contains(errOut, "swigen: diff: find toolchain") || strings.Contains(errOut, "emit:") {
		t.Errorf("diff --nvcc /nonexistent/nvcc without other flags: exit %d, stderr:\n%s", code, errOut)
	}
}
