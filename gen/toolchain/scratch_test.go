//go:build unix

package toolchain

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swigen/swigen/internal/dirlock"
)

// TestRemoveStaleScratch: an abandoned scratch directory goes; one in use
// (locked), a young one, a kept failure and other names stay.
func TestRemoveStaleScratch(t *testing.T) {
	tmp := t.TempDir()
	old := time.Now().Add(-time.Hour)
	mk := func(name string, mtime time.Time) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(d, "tmp"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return d
	}
	abandoned := mk(scratchPrefix+"k-1", old)
	inUse := mk(scratchPrefix+"k-2", old)
	young := mk(scratchPrefix+"k-3", time.Now())
	kept := mk(keptPrefix+"k-4", old)
	other := mk("other-5", old)
	unlock, err := dirlock.Lock(inUse)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	removeStaleScratchIn(tmp, time.Now())
	if _, err := os.Stat(abandoned); err == nil {
		t.Errorf("%s stays", abandoned)
	}
	for _, d := range []string{inUse, young, kept, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}
