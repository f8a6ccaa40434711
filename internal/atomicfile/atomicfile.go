// Package atomicfile replaces files atomically: a reader (or a writer
// killed mid-write) sees the old file or the new one, never a torn one,
// and a failed write leaves the old file and no temporary file.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Write replaces path with b (mode 0644) through a synced temporary file
// beside it, renamed into place; the directory is synced afterwards where
// it can be.
//
// The temporary file is locked while it is written; one that no writer
// holds and that has not changed for staleGrace was left by a writer
// killed mid-write, and Write removes it first.
func Write(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	prefix := "." + filepath.Base(path) + ".tmp-"
	removeStale(dir, prefix, time.Now())
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Dropped by Close, or by the kernel when the writer dies.
	if unlock, lerr := tryLock(f.Name()); lerr == nil {
		defer unlock()
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is durable only once the directory is synced; a failure
	// here loses nothing already visible, so it is not an error.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// staleGrace is how long a temporary file must have been left unchanged
// before an unlocked one counts as abandoned: longer than any pause of a
// live writer between its creation, lock, writes and rename.
const staleGrace = 10 * time.Second

// removeStale deletes the temporary files of dir named prefix... that no
// writer holds locked and that are older than staleGrace.
func removeStale(dir, prefix string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < staleGrace {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if unlock, err := tryLock(p); err == nil {
			os.Remove(p)
			unlock()
		}
	}
}
