package install

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallRefusesForeignDirs: a directory that is neither a venv nor
// an earlier install, or a file, is a UsageError and nothing runs (the
// --target fallback would delete it). cmd/swigen's tests drive the whole
// install through a fake python.
func TestInstallRefusesForeignDirs(t *testing.T) {
	t.Parallel()
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(foreign, "notes.txt")
	for _, tt := range []struct {
		venv, want string
	}{
		{foreign, "neither a Python venv nor a swigen compiler install"},
		{file, "is not a directory"},
	} {
		var out, errb bytes.Buffer
		in := &Installer{Stdout: &out, Stderr: &errb, Pins: []string{"p==1"},
			Run: func(context.Context, io.Writer, string, ...string) error {
				t.Errorf("%s: ran a command", tt.venv)
				return nil
			}}
		err := in.Install(context.Background(), tt.venv, "python3", false)
		if u := (*UsageError)(nil); !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want a UsageError containing %q", tt.venv, err, tt.want)
		}
	}
}
