package toolchain

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// includeFile is one header of a unit's include tree: its path relative to
// the unit's directory, slash-separated, and its contents.
type includeFile struct {
	path string
	data []byte
}

// readInclude reads every file of fsys in path order; a nil fsys has none.
func readInclude(fsys fs.FS) ([]includeFile, error) {
	if fsys == nil {
		return nil, nil
	}
	var files []includeFile
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, includeFile{p, b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read include tree: %w", err)
	}
	return files, nil
}

// writeInclude writes files into dir with their modification times pinned:
// ptxas -lineinfo records a header's time in the cubin's line table as it
// does the unit's.
func writeInclude(dir string, files []includeFile) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(p, time.Unix(0, 0), time.Unix(0, 0)); err != nil {
			return fmt.Errorf("pin mtime of %s: %w", f.path, err)
		}
	}
	return nil
}
