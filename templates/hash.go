package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
)

// Hash is the hex sha256 over the product sources (every file of FS, then
// of IncludeFS, path and contents, in path order): what a tuning result's
// key records, since results tuned with other templates or headers
// measured other code.
func Hash() (string, error) {
	h := sha256.New()
	for _, fsys := range []fs.FS{FS, IncludeFS} {
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d:%s%d:", len(p), p, len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("templates: hash: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
