// Package readfile reads the files swigen is given (results DBs, --tuned,
// manifest.json, emitted sources and cubins, plan records) as data: only a
// regular file is read, and only up to a size cap, so a path that names
// /dev/zero, a FIFO or a huge file is an error that names it instead of a
// read that never ends or runs out of memory.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Size caps of the files swigen reads; each is far above what swigen
// writes, so only a file that is not one of swigen's meets it.
const (
	// MaxJSON caps a JSON document swigen wrote: an index, a kernel
	// manifest, a plan record, a build-cache entry's metadata.
	MaxJSON = 64 << 20
	// MaxDB caps a results DB of swigen tune (a merged catalog sweep is
	// tens of MB).
	MaxDB = 512 << 20
	// MaxArtifact caps an emitted file compared or loaded whole: a source,
	// a cubin, a PTX, the Go bindings.
	MaxArtifact = 256 << 20
)

// ErrNotRegular is wrapped by Read's error for a path that is not a
// regular file (a directory, device, FIFO or socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by Read's error for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// badPath is Read's error for a path that is not a file swigen reads: the
// caller's input to fix (its BadInput method marks it for
// internal/badinput, which this leaf package cannot import).
type badPath struct{ err error }

func (e *badPath) Error() string  { return e.err.Error() }
func (e *badPath) Unwrap() error  { return e.err }
func (e *badPath) BadInput() bool { return true }

// Read returns the bytes of the regular file at path, at most limit of
// them. A path that is not a regular file (after symlinks), or a file
// over limit, is bad input (an error whose BadInput method says so,
// wrapping ErrNotRegular or ErrTooLarge) and nothing of it is read; a FIFO is refused without
// opening it. Other failures (fs.ErrNotExist among them) come back as
// os.Open's errors.
func Read(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, unresolvable(err)
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path become a FIFO between the Stat and the
	// open, the open returns at once instead of waiting for a writer; the
	// opened file is checked again below.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(path, ofi, limit); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(path, int64(len(b)), limit)
	}
	return b, nil
}

// Check is Read's test without the read: whether path is a regular file
// of at most limit bytes.
func Check(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return unresolvable(err)
	}
	return check(path, fi, limit)
}

// unresolvable marks as bad input a path that names no file however the
// file system is (a symlink loop, a file used as a directory, a name too
// long); other errors stay as they are.
func unresolvable(err error) error {
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG) {
		return &badPath{err: err}
	}
	return err
}

func check(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &badPath{err: fmt.Errorf("%s: %w (%s): swigen reads only regular files", path, ErrNotRegular, kind(fi.Mode()))}
	}
	if fi.Size() > limit {
		return tooLarge(path, fi.Size(), limit)
	}
	return nil
}

func tooLarge(path string, size, limit int64) error {
	return &badPath{err: fmt.Errorf("%s: %w: %d bytes or more, over the %d-byte cap for this file", path, ErrTooLarge, size, limit)}
}

// kind names a file mode's type for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a plain file: " + m.Type().String()
	}
}

// File is one file of a tree Tree read: its slash path and contents.
type File struct {
	Path string
	Data []byte
}

// Tree reads every regular file of fsys (an embedded tree, not user
// input: no size cap) in fs.WalkDir's order (each directory's names
// sorted).
func Tree(fsys fs.FS) ([]File, error) {
	var files []File
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, File{p, b})
		return nil
	})
	return files, err
}
