//go:build unix

package readfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/internal/badinput"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		limit   int64
		want    string
		wantErr error // nil: no error
	}{
		{small, 5, "hello", nil},
		{link, 100, "hello", nil},
		{small, 4, "", ErrTooLarge},
		{dir, 100, "", ErrNotRegular},
		{fifo, 100, "", ErrNotRegular},
		{zero, 100, "", ErrNotRegular},
		{"/dev/null", 100, "", ErrNotRegular},
		{filepath.Join(dir, "missing"), 100, "", os.ErrNotExist},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		var got []byte
		var err error
		go func() { got, err = Read(tt.path, tt.limit); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) hangs", tt.path)
		}
		switch {
		case tt.wantErr == nil && (err != nil || string(got) != tt.want):
			t.Errorf("Read(%s, %d) = %q, %v; want %q", tt.path, tt.limit, got, err, tt.want)
		case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
			t.Errorf("Read(%s, %d) error %v; want %v", tt.path, tt.limit, err, tt.wantErr)
		case tt.wantErr != nil && tt.wantErr != os.ErrNotExist && !badinput.Is(err):
			t.Errorf("Read(%s, %d) error %v is not bad input", tt.path, tt.limit, err)
		}
	}
}

func TestTree(t *testing.T) {
	fsys := fstest.MapFS{
		"b.cuh":     {Data: []byte("b")},
		"a/x.inc":   {Data: []byte("x")},
		"a.cuh":     {Data: []byte("")},
		"dir/empty": {Mode: fs.ModeDir},
	}
	got, err := Tree(fsys)
	if err != nil {
		t.Fatal(err)
	}
	// fs.WalkDir's order: a directory's names sorted, so "a" (and a/x.inc) before "a.cuh".
	want := []File{{Path: "a/x.inc", Data: []byte("x")}, {Path: "a.cuh", Data: []byte("")}, {Path: "b.cuh", Data: []byte("b")}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Tree (-want +got):\n%s", d)
	}
}
