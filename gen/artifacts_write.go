package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swigen/swigen/internal/badinput"
	"github.com/swigen/swigen/internal/dirlock"
	"github.com/swigen/swigen/internal/readfile"
)

// fileSys is what writeAll needs of a file system. The OS's is osFS;
// tests wrap it to fail a chosen operation.
type fileSys interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
	Mkdir(name string, perm fs.FileMode) error
	MkdirTemp(dir, pattern string) (string, error)
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Rename(oldpath, newpath string) error
	Remove(name string) error
	RemoveAll(name string) error
	ReadDir(name string) ([]fs.DirEntry, error)
}

type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osFS) ReadFile(name string) ([]byte, error) {
	return readfile.Read(name, readfile.MaxArtifact)
}
func (osFS) Mkdir(name string, perm fs.FileMode) error     { return os.Mkdir(name, perm) }
func (osFS) MkdirTemp(dir, pattern string) (string, error) { return os.MkdirTemp(dir, pattern) }
func (osFS) Rename(oldpath, newpath string) error          { return os.Rename(oldpath, newpath) }
func (osFS) Remove(name string) error                      { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                   { return os.RemoveAll(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error)    { return os.ReadDir(name) }

// WriteFile writes data and sets perm exactly (os.WriteFile's perm is
// masked by the umask on creation only, and staged files are always new).
func (osFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := os.WriteFile(name, data, perm); err != nil {
		return err
	}
	return os.Chmod(name, perm)
}

// stagePrefix begins the name of the hidden directory inside the output
// directory that Emit stages an emit in: the new files, the files they
// replace and the previous emit's files it removes, and the journal that
// says which renames an interrupted emit may have done. A staging
// directory left by a killed emit is rolled back by the next emit into the
// directory (recoverStages); one renamed to donePrefix is a finished emit
// whose backups only remain to be deleted.
const (
	stagePrefix = ".swigen-emit-"
	donePrefix  = ".swigen-emit-done-"
	journalFile = "journal.json"
)

// journal is what a staging directory records before the first rename
// into the output directory: the files written (and whether each
// replaced one) and the previous emit's files removed.
type journal struct {
	Write  []journalWrite `json:"write"`
	Remove []string       `json:"remove"`
}

type journalWrite struct {
	Name    string `json:"name"`
	Existed bool   `json:"existed"`
}

// writeOptions are what commit needs besides the files.
type writeOptions struct {
	// guarded names the files that are not kernel artifacts (the index and
	// the bindings): an existing one emit did not write is replaced only
	// with force.
	guarded map[string]bool
	force   bool
}

// commit writes files into dir as one transaction, all or nothing, with
// the previous emit's leftovers removed, under dir's lock; it returns
// what it did with each file and the leftovers removed and kept.
func commit(fsys fileSys, dir string, files []OutputFile, wo writeOptions) (written []EmittedFile, removed, kept []string, err error) {
	created, unlock, err := lockOutDir(fsys, dir)
	if err != nil {
		return nil, nil, nil, err
	}
	defer unlock()
	fail := func(err error) ([]EmittedFile, []string, []string, error) {
		if rerr := removeDirs(fsys, created); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, nil, nil, err
	}
	if err := recoverStages(fsys, dir); err != nil {
		return fail(fmt.Errorf("emit: %s: an interrupted emit could not be rolled back: %w", dir, err))
	}
	old, _ := readIndex(fsys, dir) // unreadable: names nothing
	removed, kept, err = leftovers(fsys, dir, old, files)
	if err != nil {
		return fail(err)
	}
	written, changes, err := changedFiles(fsys, dir, files, ownedBy(old), wo)
	if err != nil {
		return fail(err)
	}
	if len(changes) == 0 && len(removed) == 0 {
		return written, removed, kept, nil
	}
	if err := writeStaged(fsys, dir, changes, removed); err != nil {
		return fail(err)
	}
	return written, removed, kept, nil
}

// RecoverOutput finishes, under dir's lock, what emits into dir that were
// killed left behind (see EmitArtifacts), as the next emit into dir does
// first: dir then holds the last emit that finished, whole, and no
// staging directory. A missing dir is nothing to recover.
func RecoverOutput(dir string) error {
	unlock, err := dirlock.Lock(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recover %s: %w", dir, err)
	}
	defer unlock()
	return recoverStages(osFS{}, dir)
}

// Interrupted reports whether dir holds the staging directory of an emit
// that was killed before its commit point (RecoverOutput rolls it back).
func Interrupted(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && stageID(e.Name(), stagePrefix) {
			return true
		}
	}
	return false
}

// lockOutDir creates dir (and its missing parents) and takes its lock; it
// returns the directories it created, outermost first, and the release.
func lockOutDir(fsys fileSys, dir string) (created []string, unlock func(), err error) {
	for range 100 {
		created, err = mkdirAll(fsys, dir)
		if err != nil {
			return nil, nil, fmt.Errorf("emit: output directory %s: %w", dir, err)
		}
		unlock, err = dirlock.Lock(dir)
		if !errors.Is(err, dirlock.ErrReplaced) && !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("emit: lock %s: %w", dir, err), removeDirs(fsys, created))
	}
	return created, unlock, nil
}

// change is one file whose bytes change.
type change struct {
	name, path string
	data       []byte
	existed    bool
}

// changedFiles reports on every file and returns those whose bytes
// change, refusing what a rename could not replace and, unless
// wo.force, a guarded file that emit did not write.
func changedFiles(fsys fileSys, dir string, files []OutputFile, owned map[string]bool, wo writeOptions) ([]EmittedFile, []change, error) {
	var written []EmittedFile
	var changes []change
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		st := FileWritten
		fi, lerr := fsys.Lstat(path)
		var old []byte
		switch {
		case lerr == nil && fi.IsDir():
			return nil, nil, fmt.Errorf("emit: %s: a directory is where this output file goes; move it away", path)
		case lerr == nil:
			var rerr error
			if old, rerr = fsys.ReadFile(path); rerr == nil && bytes.Equal(old, f.Data) {
				st = FileUnchanged
			}
		case !errors.Is(lerr, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("emit: %w", lerr)
		}
		if st == FileWritten && lerr == nil && wo.guarded[f.Name] && !wo.force && !owned[f.Name] && !looksGenerated(f.Name, fi, old) {
			return nil, nil, &badinput.Error{Err: fmt.Errorf("emit: %s exists and swigen did not write it (no index records it, and it is not generated code): move it away, or pass --force to replace it; nothing written", path)}
		}
		written = append(written, EmittedFile{Path: path, Status: st, Size: len(f.Data)})
		if st == FileWritten {
			changes = append(changes, change{f.Name, path, f.Data, lerr == nil})
		}
	}
	return written, changes, nil
}

// ownedBy returns the names the index of a previous emit records as its
// own (nil: none).
func ownedBy(idx *Index) map[string]bool {
	owned := map[string]bool{}
	if idx == nil {
		return owned
	}
	for _, f := range idx.Files {
		owned[f.Name] = true
	}
	for _, k := range idx.Kernels {
		owned[k.Source], owned[k.Manifest], owned[k.Cubin], owned[k.Report] = true, true, true, true
	}
	return owned
}

// looksGenerated reports whether data, the file name on disk, is one an
// emit (of this or an older swigen) could have written: an index
// (a JSON object with kernels), or a file whose first line says it is
// generated code that must not be edited.
func looksGenerated(name string, fi fs.FileInfo, data []byte) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	if name == IndexFile {
		var idx map[string]json.RawMessage
		if json.Unmarshal(data, &idx) != nil {
			return false
		}
		_, ok := idx["kernels"]
		return ok
	}
	first, _, _ := bytes.Cut(data[:min(len(data), 512)], []byte("\n"))
	return bytes.Contains(first, []byte("Code generated")) && bytes.Contains(first, []byte("DO NOT EDIT"))
}

// writeStaged stages changes in a new staging directory of dir, writes
// its journal, then renames: the removed files into the staging
// directory, each replaced file into it and each new file into place. On
// failure it rolls everything back; when all is in, the staging
// directory is renamed done (the commit point) and deleted.
func writeStaged(fsys fileSys, dir string, changes []change, remove []string) (err error) {
	stage, err := fsys.MkdirTemp(dir, stagePrefix+"*")
	if err != nil {
		return fmt.Errorf("emit: staging directory in %s: %w", dir, err)
	}
	defer func() {
		if err == nil {
			return
		}
		if uerr := rollback(fsys, dir, stage); uerr != nil {
			err = fmt.Errorf("%w; undoing the partial write also failed, so %s may hold a mix of old and new files (the next emit into it retries; %s holds what was moved): %w", err, dir, stage, uerr)
		}
	}()
	for _, d := range []string{"new", "old", "gone"} {
		if err := fsys.Mkdir(filepath.Join(stage, d), 0o755); err != nil {
			return fmt.Errorf("emit: staging directory: %w", err)
		}
	}
	j := journal{Remove: remove}
	for _, c := range changes {
		if err := fsys.WriteFile(filepath.Join(stage, "new", c.name), c.data, 0o644); err != nil {
			return fmt.Errorf("emit: write %s: %w", c.path, err)
		}
		j.Write = append(j.Write, journalWrite{c.name, c.existed})
	}
	jb, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("emit: journal: %w", err)
	}
	// Written whole before the first rename: a journal cut short by a
	// kill means nothing was renamed yet.
	if err := fsys.WriteFile(filepath.Join(stage, journalFile), jb, 0o644); err != nil {
		return fmt.Errorf("emit: journal: %w", err)
	}
	for _, name := range remove {
		if err := fsys.Rename(filepath.Join(dir, name), filepath.Join(stage, "gone", name)); err != nil {
			return fmt.Errorf("emit: remove %s: %w", filepath.Join(dir, name), err)
		}
	}
	for _, c := range changes {
		if c.existed {
			if err := fsys.Rename(c.path, filepath.Join(stage, "old", c.name)); err != nil {
				return fmt.Errorf("emit: replace %s: %w", c.path, err)
			}
		}
		if err := fsys.Rename(filepath.Join(stage, "new", c.name), c.path); err != nil {
			return fmt.Errorf("emit: write %s: %w", c.path, err)
		}
	}
	// The commit point: from here a crash leaves the new files in place
	// and only backups to delete. Where the rename fails, removing the
	// journal commits as well (a staging directory without one is
	// deleted, not rolled back); where both fail, the emit fails.
	done := filepath.Join(dir, donePrefix+strings.TrimPrefix(filepath.Base(stage), stagePrefix))
	if err := fsys.Rename(stage, done); err != nil {
		if rerr := fsys.Remove(filepath.Join(stage, journalFile)); rerr != nil {
			return fmt.Errorf("emit: commit %s: %w", dir, errors.Join(err, rerr))
		}
		done = stage
	}
	// What is left is backups: failing to delete them leaves a hidden
	// directory the next emit deletes, not a wrong output.
	fsys.RemoveAll(done)
	return nil
}

// rollback takes back what the staging directory stage of dir records:
// each replaced file renamed back over its new one, each created file
// removed, each removed file renamed back; then stage is deleted. A stage
// without a whole journal renamed nothing into dir.
func rollback(fsys fileSys, dir, stage string) error {
	var j journal
	jb, err := fsys.ReadFile(filepath.Join(stage, journalFile))
	if err != nil || json.Unmarshal(jb, &j) != nil {
		return fsys.RemoveAll(stage)
	}
	var errs []error
	exists := func(p string) bool { _, err := fsys.Lstat(p); return err == nil }
	for i := len(j.Write) - 1; i >= 0; i-- {
		w := j.Write[i]
		if !plainName(w.Name) {
			continue
		}
		target, backup := filepath.Join(dir, w.Name), filepath.Join(stage, "old", w.Name)
		switch {
		case exists(backup):
			if err := fsys.Rename(backup, target); err != nil {
				errs = append(errs, err)
			}
		case !w.Existed && !exists(filepath.Join(stage, "new", w.Name)):
			// Renamed into place, so the file at target is this emit's.
			if err := fsys.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	for _, name := range j.Remove {
		if gone := filepath.Join(stage, "gone", name); plainName(name) && exists(gone) {
			if err := fsys.Rename(gone, filepath.Join(dir, name)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return fsys.RemoveAll(stage)
}

// recoverStages finishes what killed emits left in dir: a done staging
// directory is deleted, any other is rolled back, so dir holds the last
// emit that finished, whole.
func recoverStages(fsys fileSys, dir string) error {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		switch {
		case !e.IsDir():
		case stageID(name, donePrefix):
			if err := fsys.RemoveAll(filepath.Join(dir, name)); err != nil {
				errs = append(errs, err)
			}
		case stageID(name, stagePrefix):
			if err := rollback(fsys, dir, filepath.Join(dir, name)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// stageID reports whether name is prefix followed by the digits
// MkdirTemp puts in: a staging directory emit made, not a name a user or
// a damaged index chose.
func stageID(name, prefix string) bool {
	id, ok := strings.CutPrefix(name, prefix)
	if !ok || id == "" {
		return false
	}
	for _, r := range id {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// plainName reports whether name is a file name in the directory itself.
func plainName(name string) bool {
	return name != "" && name == filepath.Base(name) && name != "." && name != ".."
}

// mkdirAll creates dir and its missing parents and returns the directories
// it created, outermost first.
func mkdirAll(fsys fileSys, dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := fsys.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("%s is not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := fsys.Mkdir(missing[i], 0o755)
		switch {
		case errors.Is(err, fs.ErrExist):
			// Made meanwhile by someone else: not ours to remove.
		case err != nil:
			return nil, errors.Join(err, removeDirs(fsys, created))
		default:
			created = append(created, missing[i])
		}
	}
	return created, nil
}

// removeDirs removes the directories mkdirAll created, innermost first.
// Only empty ones go: anything else put there meanwhile is kept.
func removeDirs(fsys fileSys, created []string) error {
	var errs []error
	for i := len(created) - 1; i >= 0; i-- {
		if err := fsys.Remove(created[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
