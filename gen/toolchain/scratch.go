package toolchain

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swigen/swigen/internal/dirlock"
)

// A compile runs in a scratch directory of the system's temporary
// directory, named scratchPrefix..., locked while in use; after a failed
// compile it stays for its repro line, renamed keptPrefix...
const (
	scratchPrefix = "swigen-build-"
	keptPrefix    = "swigen-failed-build-"
)

// scratchGrace is how old an unlocked scratch directory must be before it
// counts as abandoned: older than the moment between its creation and
// its lock.
const scratchGrace = time.Minute

var staleScratchOnce sync.Once

// removeStaleScratch deletes, once per process, the scratch directories
// of compiles that were killed (kill -9 leaves them): those no live
// process holds locked and older than scratchGrace.
func removeStaleScratch() {
	staleScratchOnce.Do(func() { removeStaleScratchIn(os.TempDir(), time.Now()) })
}

func removeStaleScratchIn(tmp string, now time.Time) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), scratchPrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < scratchGrace {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		unlock, err := dirlock.TryLock(dir)
		if err != nil {
			continue // in use, or not ours to open
		}
		os.RemoveAll(dir)
		unlock()
	}
}
