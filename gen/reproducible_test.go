package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// TestCompileReproducible builds the seed kernel of each arch and a thin
// unit (the examples' gemm, which includes the CUDA library) twice: in two
// scratch directories (TMPDIR), with two cache directories, and the second
// time with a toolkit whose headers carry another modification time (a
// wheel installed on another day). The cubins and the build reports written
// next to them must be byte-identical, or
// `swigen diff` and the committed examples would go stale on every machine.
func TestCompileReproducible(t *testing.T) {
	tc := realToolchain(t)
	other := toolkitWithNewHeaderTimes(t, tc)
	var cfgs []tiling.Config
	for _, arch := range []tiling.Arch{tiling.ArchSM90a, tiling.ArchSM100a} {
		cfg, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, arch, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg)
	}
	thin, err := tiling.ParseName("gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative")
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range append(cfgs, thin) {
		arch := cfg.Arch
		a, err := renderCfg(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var cubins, reports [][]byte
		for _, tk := range []*toolchain.Toolchain{tc, other} {
			t.Setenv("TMPDIR", t.TempDir())
			r, err := tk.Compile(context.Background(), a.Name, a.Source, toolchain.CompileOptions{Arch: string(arch), CacheDir: t.TempDir(), Include: a.Include})
			if err != nil {
				t.Fatalf("%s with %s: %v", a.Name, tk.NVCC, err)
			}
			rep, err := json.Marshal(r.Report)
			if err != nil {
				t.Fatal(err)
			}
			cubins, reports = append(cubins, r.Cubin), append(reports, rep)
		}
		if !bytes.Equal(cubins[0], cubins[1]) {
			t.Errorf("%s: the cubins differ (%d bytes, first difference at byte %d) between two builds in other directories with other header times",
				a.Name, len(cubins[0]), firstDiffByte(cubins[0], cubins[1]))
		}
		if d := cmp.Diff(string(reports[0]), string(reports[1])); d != "" {
			t.Errorf("%s: the build reports differ (-first +second):\n%s", a.Name, d)
		}
	}
}

// toolkitWithNewHeaderTimes returns a toolchain whose tools are links to
// tc's and whose include directory is a copy with every file's time set to
// a fixed date. nvcc finds its headers relative to the directory it was
// started from, so the copy is what it reads.
func toolkitWithNewHeaderTimes(t *testing.T, tc *toolchain.Toolchain) *toolchain.Toolchain {
	t.Helper()
	root := filepath.Dir(filepath.Dir(tc.NVCC))
	ovl := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		src, dst := filepath.Join(root, e.Name()), filepath.Join(ovl, e.Name())
		switch e.Name() {
		case "bin":
			linkEach(t, src, dst)
		case "include":
			copyTree(t, src, dst, time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC))
		default:
			if err := os.Symlink(src, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	other, err := toolchain.Find(toolchain.FindOptions{NVCC: filepath.Join(ovl, "bin", "nvcc")})
	if err != nil {
		t.Fatal(err)
	}
	return other
}

// linkEach makes dst a directory of symbolic links to src's entries.
func linkEach(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// copyTree copies the regular files and directories under src to dst and
// gives every copied file the modification time mtime.
func copyTree(t *testing.T, src, dst string, mtime time.Time) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(out, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// firstDiffByte is the index of the first byte where a and b differ.
func firstDiffByte(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// realToolchain returns the installed CUDA toolchain or skips the test.
// With SWIGEN_REQUIRE_COMPILER=1 (set by .ci/run) a missing compiler fails.
func realToolchain(t *testing.T) *toolchain.Toolchain {
	t.Helper()
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("skipping real-compiler test: no CUDA compiler found (bash .ci/run installs one): %v", err)
	}
	return tc
}
