//go:build unix

package toolchain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVersionTimeoutKillsGroup: an nvcc wrapper whose child sleeps with
// the output pipe open must not make Find wait past the timeout.
func TestVersionTimeoutKillsGroup(t *testing.T) {
	old := versionTimeout
	versionTimeout = 300 * time.Millisecond
	t.Cleanup(func() { versionTimeout = old })
	dir := t.TempDir()
	for _, tool := range []string{"nvcc", "ptxas"} {
		if err := os.WriteFile(filepath.Join(dir, tool), []byte("#!/bin/sh\nsleep 60 &\nwait\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	_, err := toolchainAt(filepath.Join(dir, "nvcc"))
	if err == nil || !strings.Contains(err.Error(), "--version") {
		t.Errorf("a hung nvcc --version: error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("toolchainAt returned after %v, want about the timeout", d)
	}
}

// TestCompileTimeoutKillsGroup: a compile whose nvcc wrapper leaves a
// sleeping child ends at the context's deadline, and leaves no scratch
// directory.
func TestCompileTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	for _, tool := range []string{"nvcc", "ptxas"} {
		if err := os.WriteFile(filepath.Join(dir, tool), []byte("#!/bin/sh\nsleep 60 &\nwait\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tc := &Toolchain{NVCC: filepath.Join(dir, "nvcc"), PTXAS: filepath.Join(dir, "ptxas"), Version: "13.0.88"}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := tc.Compile(ctx, "k", []byte("x"), CompileOptions{Arch: "sm_90a", NoCache: true})
	if err == nil {
		t.Fatal("a hung compile succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Compile returned after %v, want about the deadline", d)
	}
	if ents, _ := os.ReadDir(os.Getenv("TMPDIR")); len(ents) > 0 {
		t.Errorf("the compile left %s in TMPDIR", ents[0].Name())
	}
}
