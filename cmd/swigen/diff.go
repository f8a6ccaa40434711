package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/internal/textdiff"
)

const diffLong = `Check that generated output on disk is up to date.

diff takes the same flags as emit, renders and compiles everything in memory
(nothing is written) and compares it with the files in the output directory
(-o). It prints a unified diff of every stale text file (sources, manifests,
the index, the Go bindings of --go-package, the ptxas reports) and, for
cubins, the sha256 on disk and rendered. It exits 0 when everything is up
to date and 3 when anything is stale or missing. Builds are
bit-reproducible, so a cubin differs only when its source, flags or
compiler do.

Files on disk that emit would not write are ignored. Checking cubins
needs the CUDA compiler; with --no-compile only the sources and the
per-kernel manifests are compared.`

func newDiffCmd(e *env, runF func(context.Context, *emitOptions) error) *cobra.Command {
	// diff is emit's flag set with another action, so the two can never
	// disagree on what a flag means.
	cmd := newEmitCmd(e, func(ctx context.Context, o *emitOptions) error {
		if runF != nil {
			return runF(ctx, o)
		}
		return runDiff(ctx, e, o)
	})
	cmd.Use = "diff"
	cmd.Short = "Check that emitted kernels and Go bindings on disk are up to date (exit 3 when stale)"
	cmd.Long = diffLong
	cmd.Example = `  swigen diff --go-package kernels -o kernels --arch sm_90a
  swigen diff --catalog --no-compile -o /tmp/swigen-src`
	return cmd
}

func runDiff(ctx context.Context, e *env, o *emitOptions) error {
	o.DryRun = func(res *gen.EmitResult, tc *gen.Toolchain) error {
		srcOnly := tc == nil
		var checked, stale int
		for _, f := range res.Output {
			if skipDiff(f.Name, srcOnly, res) {
				continue
			}
			checked++
			text, err := diffFile(o.Out, f)
			if err != nil {
				return fmt.Errorf("diff: %w", err)
			}
			if text != "" {
				stale++
				fmt.Fprint(e.stdout, text)
			}
		}
		what := "files"
		if srcOnly {
			what = "sources and manifests (--no-compile: cubins, index and Go bindings not checked)"
		}
		if stale > 0 {
			return &exitError{code: exitStale, err: fmt.Errorf("diff: %s: %d of %d %s stale; run swigen emit with the same flags", o.Out, stale, checked, what)}
		}
		fmt.Fprintf(e.stdout, "%s: up to date (%d %s)\n", o.Out, checked, what)
		return nil
	}
	return runEmit(ctx, e, o)
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
// report of a difference, "" when they are equal. Cubins are compared by
// sha256, everything else as text.
func diffFile(dir string, f gen.OutputFile) (string, error) {
	path := filepath.Join(dir, f.Name)
	disk, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return "", err
	}
	if !missing && bytes.Equal(disk, f.Data) {
		return "", nil
	}
	if strings.HasSuffix(f.Name, ".cubin") {
		want := sha256.Sum256(f.Data)
		if missing {
			return fmt.Sprintf("cubin %s: missing on disk; rendered sha256 %s\n", path, hex.EncodeToString(want[:])), nil
		}
		got := sha256.Sum256(disk)
		return fmt.Sprintf("cubin %s: sha256 %s on disk, %s rendered\n", path, hex.EncodeToString(got[:]), hex.EncodeToString(want[:])), nil
	}
	from := path
	if missing {
		from = "/dev/null"
	}
	return textdiff.Unified(from, path+" (rendered)", string(disk), string(f.Data)), nil
}
