//go:build unix

package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIsolateKillsGroup runs a wrapper whose child sleeps and keeps the
// output pipe: a timeout must end Run promptly and kill the child too.
func TestIsolateKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "sleep 60 & echo $! >"+pidFile+"; wait")
	Isolate(cmd)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a killed command succeeded: %s", out)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run returned %v after the timeout, want at once (the group killed)", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the wrapper's child %d outlived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
