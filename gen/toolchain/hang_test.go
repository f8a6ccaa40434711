//go:build unix

package toolchain

import (
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
