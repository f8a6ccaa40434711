package toolchain

import (
	"errors"
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

// newScratch makes a compile's scratch directory, locked while in use (so
// removeStaleScratch in another process leaves it alone; a kill -9 drops
// the lock), and returns it with its release: the directory is removed,
// or with keep renamed keptPrefix... for the repro line, the
// *CompileError in err updated to name the new place.
func newScratch(stem string) (dir string, release func(keep bool, err error), err error) {
	removeStaleScratch()
	dir, err = os.MkdirTemp("", scratchPrefix+stem+"-")
	if err != nil {
		return "", nil, err
	}
	unlock, lerr := dirlock.Lock(dir)
	if lerr != nil {
		unlock = func() {}
	}
	return dir, func(keep bool, err error) {
		defer unlock()
		if !keep {
			os.RemoveAll(dir)
			return
		}
		kept := filepath.Join(filepath.Dir(dir), keptPrefix+strings.TrimPrefix(filepath.Base(dir), scratchPrefix))
		var ce *CompileError
		if errors.As(err, &ce) && os.Rename(dir, kept) == nil {
			ce.Dir = kept
			ce.SourcePath = filepath.Join(kept, filepath.Base(ce.SourcePath))
		}
	}, nil
}

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
