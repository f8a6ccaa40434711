package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, body := range []string{"one", "two"} {
		if err := Write(p, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != body {
			t.Errorf("file holds %q, want %q", b, body)
		}
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries left, want the file alone", len(ents))
	}
}

// TestWriteRemovesStaleTemps: a temporary file a killed writer left (old,
// unlocked) goes with the next Write; a live writer's (locked) and a
// young one stay.
func TestWriteRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	old := time.Now().Add(-time.Hour)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(".m.json.tmp-1", old)
	young := mk(".m.json.tmp-2", time.Now())
	live := mk(".m.json.tmp-3", old)
	other := mk(".n.json.tmp-4", old)
	unlock, err := tryLock(live)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s stays", stale)
	}
	for _, p := range []string{young, live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}
