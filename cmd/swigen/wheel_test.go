package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
)

// TestWheelUsageErrors checks bad flags exit 2 before any work and leave
// no -o behind.
func TestWheelUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "sm_80"}, "--arch"},
		{[]string{"--dtype", "fp8"}, "--dtype"},
		{[]string{"--kernel", "nope"}, "--kernel"},
		{[]string{"--arch", ""}, "arch"},
		{[]string{"stray"}, "stray"},
		{[]string{"--bogus"}, "bogus"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "dist")
			code, _, errOut := runCLI(t, append([]string{"wheel", "-o", out}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d; stderr (want %q):\n%s", code, exitUsage, tt.want, errOut)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("-o %s was created (%v)", out, err)
			}
		})
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "wheel", "-o", file); code != exitUsage {
		t.Errorf("-o a file: exit %d, want %d:\n%s", code, exitUsage, errOut)
	}
}

// TestWheelNoCompiler checks a missing compiler exits 1 with nothing in -o.
func TestWheelNoCompiler(t *testing.T) {
	t.Parallel()
	// An nvcc that exists but fails: a missing --nvcc path is bad usage
	// (exit 2), a compiler that does not work a runtime failure (exit 1).
	nvcc := filepath.Join(t.TempDir(), "nvcc")
	if err := os.WriteFile(nvcc, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	code, _, errOut := runCLI(t, "wheel", "-o", out, "--nvcc", nvcc)
	if code != exitFailure || !strings.Contains(errOut, "compiled") {
		t.Errorf("exit %d, want %d:\n%s", code, exitFailure, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o %s was created (%v)", out, err)
	}
}

// TestWheelBuilds builds a one-kind wheel twice into one directory: one
// file, the same bytes; the grouped kind's on sm_100a too, which it
// skips with a note.
func TestWheelBuilds(t *testing.T) {
	if _, err := toolchain.Find(toolchain.FindOptions{}); err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("no CUDA compiler: %v", err)
	}
	for _, tt := range []struct {
		args          []string
		kernels, note string
	}{
		{[]string{"--kernel", "gemm"}, "", ""},
		// Both grouped kinds have sm_100a code (compile-only).
		{[]string{"--kernel", "moe_fwd_gateup", "--arch", "sm_90a,sm_100a"}, ": 4 kernels,", ""},
		{[]string{"--kernel", "moe_bwd_dswiglu", "--arch", "sm_90a,sm_100a"}, ": 2 kernels,", ""},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) { wheelBuildsTwice(t, tt.args, tt.kernels, tt.note) })
	}
}

// wheelBuildsTwice runs swigen wheel args twice into one directory and
// checks one file, the same bytes, stdout holding kernels and stderr note.
func wheelBuildsTwice(t *testing.T, args []string, kernels, note string) {
	out := filepath.Join(t.TempDir(), "dist")
	var first []byte
	for range 2 {
		code, stdout, errOut := runCLI(t, append([]string{"wheel", "-o", out}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, errOut)
		}
		if !strings.Contains(stdout, kernels) || !strings.Contains(errOut, note) {
			t.Errorf("stdout (want %q):\n%s\nstderr (want %q):\n%s", kernels, stdout, note, errOut)
		}
		ents, err := os.ReadDir(out)
		if err != nil || len(ents) != 1 || !strings.HasSuffix(ents[0].Name(), "-py3-none-any.whl") {
			t.Fatalf("-o holds %v (%v), want one wheel; stdout:\n%s", ents, err, stdout)
		}
		data, err := os.ReadFile(filepath.Join(out, ents[0].Name()))
		if err != nil {
			t.Fatal(err)
		}
		if first != nil && !bytes.Equal(first, data) {
			t.Error("the second build's bytes differ")
		}
		first = data
	}
}

// TestWheelCompileFailure checks a compiler that fails every kernel
// exits 1, says nothing was written, and leaves no -o (a fake nvcc, an
// empty build cache).
func TestWheelCompileFailure(t *testing.T) {
	bin := t.TempDir()
	nvcc := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; fi\necho 'fake nvcc: error: no' >&2\nexit 1\n"
	for name, body := range map[string]string{"nvcc": nvcc, "ptxas": "#!/bin/sh\nexit 1\n"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("SWIGEN_CACHE_DIR", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir()) // where the failed compile keeps its source
	out := filepath.Join(t.TempDir(), "dist")
	code, _, errOut := runCLI(t, "wheel", "-o", out, "--kernel", "gemm", "--nvcc", filepath.Join(bin, "nvcc"))
	if code != exitFailure || !strings.Contains(errOut, "nothing written") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailure, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o %s was created (%v)", out, err)
	}
}
