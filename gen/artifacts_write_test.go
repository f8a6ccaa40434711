package gen

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// faultFS is the OS file system with one operation failing: the n-th call
// (1-based) of op, and with sticky every later call of op too (so the
// rollback's own renames fail).
type faultFS struct {
	osFS
	op     string
	n      int
	sticky bool

	mu    sync.Mutex
	calls int
}

var errInjected = errors.New("injected failure")

// staleIndex is an index of an older emit that records no files.
const staleIndex = "{\"kernels\": []}\n"

func (f *faultFS) fail(op string) error {
	if op != f.op {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls == f.n || f.sticky && f.calls > f.n {
		return errInjected
	}
	return nil
}

func (f *faultFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.fail("WriteFile"); err != nil {
		return err
	}
	return f.osFS.WriteFile(name, data, perm)
}

func (f *faultFS) Rename(oldpath, newpath string) error {
	if err := f.fail("Rename"); err != nil {
		return err
	}
	return f.osFS.Rename(oldpath, newpath)
}

func (f *faultFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.fail("Mkdir"); err != nil {
		return err
	}
	return f.osFS.Mkdir(name, perm)
}

func (f *faultFS) MkdirTemp(dir, pattern string) (string, error) {
	if err := f.fail("MkdirTemp"); err != nil {
		return "", err
	}
	return f.osFS.MkdirTemp(dir, pattern)
}

// fileState is what must survive a failed emit unchanged.
type fileState struct {
	Data    string
	ModTime time.Time
	Dir     bool
}

// snapshot records every file and directory under root, by relative path.
func snapshot(t *testing.T, root string) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			m[rel] = fileState{Dir: true}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m[rel] = fileState{Data: string(b), ModTime: fi.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEmitWriteFailureLeavesNothing makes the write fail at each stage and
// checks that the output directory is exactly as before: no new file, no
// staging directory, every old file with its old bytes and mtime.
func TestEmitWriteFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	if len(cfgs) < 2 {
		t.Skip("needs two configs that render")
	}
	first, second := cfgs[0].Name(), cfgs[1].Name()
	if second < first {
		first, second = second, first
	}
	// prepare fills dir with a previous emit, then makes the first
	// kernel's source and the index stale, deletes the second kernel's
	// manifest and adds a file of the user's: the emit then replaces two
	// files and creates one (write order: first.cu, second.json, index).
	prepare := func(t *testing.T, dir string) {
		t.Helper()
		if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{first + ".cu": "stale source\n", IndexFile: staleIndex, "notes.txt": "mine\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(filepath.Join(dir, second+".json")); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour).Truncate(time.Second)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if err := os.Chtimes(filepath.Join(dir, e.Name()), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tt := range []struct {
		name    string
		fresh   bool // the output directory (and its parent) does not exist yet
		setup   func(t *testing.T, dir string)
		fs      *faultFS
		wantErr string
	}{
		{name: "a directory where manifest.json goes", setup: func(t *testing.T, dir string) {
			prepare(t, dir)
			os.Remove(filepath.Join(dir, IndexFile))
			if err := os.Mkdir(filepath.Join(dir, IndexFile), 0o755); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "a directory is where this output file goes"},
		{name: "staging directory", setup: prepare, fs: &faultFS{op: "MkdirTemp", n: 1}, wantErr: "staging directory"},
		{name: "second staged write", setup: prepare, fs: &faultFS{op: "WriteFile", n: 2}, wantErr: "emit: write "},
		{name: "backup of a replaced file", setup: prepare, fs: &faultFS{op: "Rename", n: 1}, wantErr: "emit: replace "},
		{name: "rename of a new file after a replacement", setup: prepare, fs: &faultFS{op: "Rename", n: 3}, wantErr: "emit: write "},
		{name: "rename of the index, last", setup: prepare, fs: &faultFS{op: "Rename", n: 5}, wantErr: "emit: write "},
		{name: "fresh directory, staged write", fresh: true, fs: &faultFS{op: "WriteFile", n: 1}, wantErr: "emit: write "},
		{name: "fresh directory, rename", fresh: true, fs: &faultFS{op: "Rename", n: 4}, wantErr: "emit: write "},
		{name: "fresh directory, mkdir", fresh: true, fs: &faultFS{op: "Mkdir", n: 2}, wantErr: "output directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "out")
			if tt.fresh {
				dir = filepath.Join(root, "a", "out")
			} else {
				tt.setup(t, dir)
			}
			before := snapshot(t, root)
			o := EmitOptions{Dir: dir}
			if tt.fs != nil {
				o.fs = tt.fs
			}
			res, err := Emit(context.Background(), cfgs, o)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Emit = %v, want an error containing %q", err, tt.wantErr)
			}
			if res != nil {
				t.Errorf("Emit returned a result with its error: %+v", res.Files)
			}
			if tt.fs != nil && !errors.Is(err, errInjected) {
				t.Errorf("error %v does not wrap the injected failure", err)
			}
			if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
				t.Errorf("tree after the failed emit (-before +after):\n%s", diff)
			}
		})
	}
}

// TestEmitWriteRollbackFailure makes the rollback's renames fail too: the
// error must say the directory may be mixed.
func TestEmitWriteRollbackFailure(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	dir := t.TempDir()
	if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(staleIndex), 0o644); err != nil {
		t.Fatal(err)
	}
	// Rename 1 backs the index up; 2 (the new index) and the rollback's
	// restore fail.
	_, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir, fs: &faultFS{op: "Rename", n: 2, sticky: true}})
	if err == nil || !strings.Contains(err.Error(), "undoing the partial write also failed") {
		t.Fatalf("Emit = %v, want an error saying the rollback failed", err)
	}
}

// TestEmitWriteSuccessLeavesNoStaging checks a successful emit over older
// files leaves only the output files (no staging directory or backups).
func TestEmitWriteSuccessLeavesNoStaging(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, IndexFile), []byte(staleIndex), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range res.Files {
		want[filepath.Base(f.Path)] = true
	}
	got := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		got[e.Name()] = true
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, IndexFile)); string(b) == staleIndex {
		t.Error("the stale index was not replaced")
	}
}
