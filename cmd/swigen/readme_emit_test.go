package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen"
)

// readme is the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// countFiles is the number of files in dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestReadmeFirstEmit: what README.md's first screen says `swigen emit`
// writes is what it writes (kernels and files, with and without a
// compiler, with --path fused), the unfused shapes it names are the
// plan's, and emit --help explains the unfused path.
func TestReadmeFirstEmit(t *testing.T) {
	t.Setenv("SWIGEN_CACHE_DIR", t.TempDir())
	r := readme(t)
	dir, _ := emitWithFakeCompiler(t, false)
	idx, err := gen.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	fused, _ := emitWithFakeCompiler(t, false, "--path", "fused")
	sources, _ := emitWithFakeCompiler(t, false, "--no-compile")
	want := []string{
		fmt.Sprintf("The first command compiles %d kernels and writes %d files into `out/`", len(idx.Kernels), countFiles(t, dir)),
		fmt.Sprintf("`--path fused` writes the two fused kernels only (%d files)", countFiles(t, fused)),
		fmt.Sprintf("Without a compiler it writes the sources and manifests (%d files)", countFiles(t, sources)),
		"`swigen_elementwise.cu` with its cubin",
	}
	switch len(idx.Dispatch) {
	case 0: // the seed's backward ships no unfused path, and the README says so
		want = append(want, "the seed's backward has no such shape")
	case 1:
		for _, p := range idx.Dispatch[0].Points {
			if p.Path == "unfused" {
				want = append(want, fmt.Sprintf("%d,%d,%d", p.Shape.M, p.Shape.K, p.Shape.I))
			}
		}
	default:
		t.Fatalf("default emit: %d dispatch plans, the README explains at most one", len(idx.Dispatch))
	}
	r = strings.Join(strings.Fields(r), " ") // the README's line breaks are not part of a claim
	for _, w := range want {
		if !strings.Contains(r, w) {
			t.Errorf("README.md does not say %q", w)
		}
	}
	code, help, _ := runCLI(t, "emit", "--help")
	for _, w := range []string{"unfused path", "swigen_elementwise", "--path fused writes the fused kernels only", "unfused_only"} {
		if code != exitOK || !strings.Contains(strings.Join(strings.Fields(help), " "), w) {
			t.Errorf("emit --help (exit %d) does not say %q", code, w)
		}
	}
}

// TestReadmeDispatchers: as README.md says, the default package's plan
// gemm (unfused_only) gets its own loader but no LoadGemm, which comes
// with a gemm asked for.
func TestReadmeDispatchers(t *testing.T) {
	t.Setenv("SWIGEN_CACHE_DIR", t.TempDir())
	if !strings.Contains(readme(t), "counts for no dispatcher: it keeps its own loader,\nthe fused kernel's dispatcher launches it, and `LoadGemm` comes only with a gemm you ask for") {
		t.Error("README.md does not say that a plan's gemm gets no LoadGemm")
	}
	for _, tt := range []struct {
		kernels  string
		loadGemm bool
	}{
		{"bwd_dswiglu", false},
		{"bwd_dswiglu,gemm", true},
	} {
		dir, _ := emitWithFakeCompiler(t, false, "--arch", "sm_90a", "--kernel", tt.kernels, "--go-package", "kernels")
		b, err := os.ReadFile(filepath.Join(dir, "swigen_bindings.go"))
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		var idx gen.Index
		if mb, err := os.ReadFile(filepath.Join(dir, gen.IndexFile)); err != nil || json.Unmarshal(mb, &idx) != nil {
			t.Fatalf("%s: manifest.json: %v", tt.kernels, err)
		}
		for _, k := range idx.Kernels {
			if k.Kernel == "gemm" && !strings.Contains(src, "\nfunc LoadGemmSm90a") {
				t.Errorf("--kernel %s: gemm %s has no loader of its own", tt.kernels, k.Name)
			}
		}
		if got := strings.Contains(src, "\nfunc LoadGemm(ctx"); got != tt.loadGemm {
			t.Errorf("--kernel %s: LoadGemm generated %v, want %v", tt.kernels, got, tt.loadGemm)
		}
		if !strings.Contains(src, "\nfunc LoadBwdDswiglu(ctx") {
			t.Errorf("--kernel %s: no LoadBwdDswiglu", tt.kernels)
		}
	}
}
