package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
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
	flags := []string{"--no-compile", "--go-package", "kernels", "--arch", "sm_90a", "-o", dir}
	if code, _, errOut := runCLI(t, append([]string{"emit"}, flags...)...); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, gen.GoBindingsFile)); err != nil {
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
	code, out, _ = runCLI(t, append([]string{"diff"}, flags...)...)
	if code != exitStale || !strings.Contains(out, "--- /dev/null\n") {
		t.Errorf("diff with a missing manifest: exit %d, stdout:\n%s", code, out)
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
	if _, err := gen.FindToolchain(gen.FindOptions{}); err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("no CUDA compiler: %v", err)
	}
	h90 := heuristic(t, tiling.ArchSM90a)
	dir := t.TempDir()
	flags := []string{"--go-package", "kernels", "--arch", "sm_90a", "-o", dir}
	if code, _, errOut := runCLI(t, append([]string{"emit"}, flags...)...); code != exitOK {
		t.Fatalf("emit: exit %d:\n%s", code, errOut)
	}
	diff := func() (int, string) {
		code, out, errOut := runCLI(t, append([]string{"diff"}, flags...)...)
		return code, out + errOut
	}
	if code, out := diff(); code != exitOK || !strings.Contains(out, "up to date (6 files)") {
		t.Fatalf("diff of a fresh emit: exit %d:\n%s", code, out)
	}

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

	bind := filepath.Join(dir, gen.GoBindingsFile)
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
	if _, err := gen.FindToolchain(gen.FindOptions{}); !errors.Is(err, gen.ErrNoCompiler) {
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
