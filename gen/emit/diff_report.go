package emit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/internal/readfile"
	"github.com/swigen/swigen/internal/textdiff"
)

// Write prints d as swigen diff does: the report of every stale file,
// a line per left-over file and, when everything is up to date, a line
// saying so.
func (d *DiffReport) Write(w io.Writer) error {
	for _, t := range d.Diffs {
		if _, err := io.WriteString(w, t); err != nil {
			return err
		}
	}
	for _, l := range d.Left {
		if _, err := fmt.Fprintf(w, "%s: left over: the previous emit wrote it, this one would not; %s\n", filepath.Join(d.Dir, l.Name), l.Note); err != nil {
			return err
		}
	}
	if d.UpToDate() {
		_, err := fmt.Fprintf(w, "%s: up to date (%d %s)\n", d.Dir, d.Checked, d.What)
		return err
	}
	return nil
}

// Summary is diff's message when anything is stale: the counts, one line
// per stale file, and how to bring the directory up to date.
func (d *DiffReport) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff: %s: %d of %d %s stale", d.Dir, len(d.Stale), d.Checked, d.What)
	if len(d.Left) > 0 {
		fmt.Fprintf(&b, ", %d left over from the previous emit", len(d.Left))
	}
	b.WriteString(":\n")
	for _, f := range append(slices.Clone(d.Stale), d.Left...) {
		fmt.Fprintf(&b, "  %-9s %s", f.How, f.Name)
		if f.Note != "" {
			fmt.Fprintf(&b, " (%s)", f.Note)
		}
		b.WriteString("\n")
	}
	switch {
	case d.Recorded != "":
		fmt.Fprintf(&b, "to regenerate, run go generate or, in %s, %s", d.Recorded, strings.Join(d.command, " "))
	default:
		b.WriteString("to regenerate, run swigen emit with the same flags")
		if _, err := os.Stat(filepath.Join(d.Dir, gen.IndexFile)); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(&b, " (%s holds no %s: no emit wrote it; without flags, diff checks the directory it runs in)", d.Dir, gen.IndexFile)
		}
	}
	return b.String()
}

// skipDiff says which laid-out files diff does not compare: without a
// compiler, everything but the kernels' sources and manifests (the index,
// the reports and the bindings then describe a build without cubins, which
// is not what is on disk).
func skipDiff(name string, srcOnly bool, res *gen.EmitResult) bool {
	if !srcOnly {
		return false
	}
	for _, k := range res.Kernels {
		if name == k.Artifact.Name+".cu" || name == k.Artifact.Name+".json" {
			return false
		}
	}
	return true
}

// diffFile compares one rendered file with dir's copy and returns the
// report of a difference ("" when they are equal) and how it differs:
// "changed" or "missing". Cubins are compared by sha256, a missing file
// is one line, everything else is a unified diff.
func diffFile(dir string, f gen.OutputFile) (text, how string, err error) {
	path := filepath.Join(dir, f.Name)
	// A file of the package linked elsewhere is not the package's: its
	// bytes must not reach the report.
	if err := confined(dir, path); err != nil {
		return "", "", usage(err)
	}
	disk, err := readfile.Read(path, readfile.MaxArtifact)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return "", "", err
	}
	if !missing && bytes.Equal(disk, f.Data) {
		return "", "", nil
	}
	want := sha256.Sum256(f.Data)
	if missing {
		return fmt.Sprintf("%s: missing on disk; rendered %d bytes, sha256 %s\n", path, len(f.Data), hex.EncodeToString(want[:])), "missing", nil
	}
	if strings.HasSuffix(f.Name, ".cubin") {
		got := sha256.Sum256(disk)
		return fmt.Sprintf("cubin %s: sha256 %s on disk, %s rendered\n", path, hex.EncodeToString(got[:]), hex.EncodeToString(want[:])), "changed", nil
	}
	return textdiff.Unified(path, path+" (rendered)", string(disk), string(f.Data)), "changed", nil
}
