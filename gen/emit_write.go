package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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

// WriteFile writes data and sets perm exactly (os.WriteFile's perm is
// masked by the umask on creation only, and staged files are always new).
func (osFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := os.WriteFile(name, data, perm); err != nil {
		return err
	}
	return os.Chmod(name, perm)
}

// stagePrefix begins the name of the hidden directory inside the output
// directory that Emit writes into before renaming files into place. It is
// removed before Emit returns; one left behind by a killed process can be
// deleted.
const stagePrefix = ".swigen-emit-"

// writeAll writes files into dir, all or nothing (see EmitArtifacts), and
// reports what it did with each file.
func writeAll(fsys fileSys, dir string, files []OutputFile) (written []EmittedFile, err error) {
	// undo holds the steps that take back what was done so far; on failure
	// they run last to first.
	var undo []func() error
	defer func() {
		if err == nil {
			return
		}
		written = nil
		var uerrs []error
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				uerrs = append(uerrs, uerr)
			}
		}
		if len(uerrs) > 0 {
			err = fmt.Errorf("%w; undoing the partial write also failed, so %s may hold a mix of old and new files: %w", err, dir, errors.Join(uerrs...))
		}
	}()

	created, err := mkdirAll(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("emit: output directory %s: %w", dir, err)
	}
	undo = append(undo, func() error { return removeDirs(fsys, created) })

	// Find the files whose bytes change, refusing early what a rename
	// could not replace.
	type change struct {
		name, path string
		data       []byte
		existed    bool
	}
	var changes []change
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		st := FileWritten
		fi, lerr := fsys.Lstat(path)
		switch {
		case lerr == nil && fi.IsDir():
			return nil, fmt.Errorf("emit: %s: a directory is where this output file goes; move it away", path)
		case lerr == nil:
			if old, rerr := fsys.ReadFile(path); rerr == nil && bytes.Equal(old, f.Data) {
				st = FileUnchanged
			}
		case !errors.Is(lerr, fs.ErrNotExist):
			return nil, fmt.Errorf("emit: %w", lerr)
		}
		written = append(written, EmittedFile{Path: path, Status: st, Size: len(f.Data)})
		if st == FileWritten {
			changes = append(changes, change{f.Name, path, f.Data, lerr == nil})
		}
	}
	if len(changes) == 0 {
		return written, nil
	}

	// Stage every changed file next to its target, so each rename stays on
	// one file system and is atomic.
	stage, err := fsys.MkdirTemp(dir, stagePrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("emit: staging directory in %s: %w", dir, err)
	}
	undo = append(undo, func() error { return fsys.RemoveAll(stage) })
	newDir, oldDir := filepath.Join(stage, "new"), filepath.Join(stage, "old")
	for _, d := range []string{newDir, oldDir} {
		if err := fsys.Mkdir(d, 0o755); err != nil {
			return nil, fmt.Errorf("emit: staging directory: %w", err)
		}
	}
	for _, c := range changes {
		if err := fsys.WriteFile(filepath.Join(newDir, c.name), c.data, 0o644); err != nil {
			return nil, fmt.Errorf("emit: write %s: %w", c.path, err)
		}
	}

	// Rename into place, keeping each replaced file in the staging
	// directory until every new file is in.
	for _, c := range changes {
		if c.existed {
			backup := filepath.Join(oldDir, c.name)
			if err := fsys.Rename(c.path, backup); err != nil {
				return nil, fmt.Errorf("emit: replace %s: %w", c.path, err)
			}
			undo = append(undo, func() error { return fsys.Rename(backup, c.path) })
		}
		if err := fsys.Rename(filepath.Join(newDir, c.name), c.path); err != nil {
			return nil, fmt.Errorf("emit: write %s: %w", c.path, err)
		}
		if !c.existed {
			undo = append(undo, func() error { return fsys.Remove(c.path) })
		}
	}
	// Every file is in place; the backups go with the staging directory.
	// A failure to remove it leaves a hidden directory, not a wrong
	// output, so it is not an error.
	fsys.RemoveAll(stage)
	return written, nil
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
