package toolchain

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/swigen/swigen/internal/readfile"
)

// includeFile is one header of a unit's include tree: its path relative to
// the unit's directory, slash-separated, and its contents.
type includeFile = readfile.File

// readInclude reads every file of fsys in path order; a nil fsys has none.
func readInclude(fsys fs.FS) ([]includeFile, error) {
	if fsys == nil {
		return nil, nil
	}
	files, err := readfile.Tree(fsys)
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
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(p, time.Unix(0, 0), time.Unix(0, 0)); err != nil {
			return fmt.Errorf("pin mtime of %s: %w", f.Path, err)
		}
	}
	return nil
}
