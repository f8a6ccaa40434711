package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen/emit"
)

const diffLong = `Check that generated output on disk is up to date.

Without flags (--nvcc aside), diff checks the directory an emit wrote: the
current directory when it holds manifest.json, else out/ (emit's default
-o); with -o DIR (and no other emit flag) it checks DIR, from anywhere.
It runs again the emit command that manifest.json records, so in a
package whose //go:generate line runs swigen emit -o ., go tool swigen
diff in that package checks it. The record is data (it may come from a
pull request): only emit's flags that decide the kernels and files are
honoured, --out must be ".", --tuned a file inside the package, and the
compiler is the caller's (--nvcc, or the search of CUDA_HOME, PATH, ...),
never one the record names; a record with --nvcc, --help, an unknown
flag or a path outside the package is a usage error (exit 2), as is a
package file that is a symlink out of the package. A manifest.json that
records no command (written by the gen library or an older swigen) is a
usage error: pass emit's flags. With flags, diff takes the same flags as
emit and checks the output directory (-o) against them.

Either way diff renders and compiles everything in memory (nothing is
written; the build cache is read, so a warm diff compiles nothing, but
never written) and compares it with the files on disk.
It prints a unified diff of every stale text file (sources, manifests, the
index, the Go bindings of --go-package, the __init__.py of --py-package,
the ptxas reports), for cubins the
sha256 on disk and rendered, and a summary of every stale file: changed,
missing, or left over (a file the previous emit wrote, by manifest.json,
that this emit would not write, such as the cubin of an --arch no longer
asked for). It exits 0 when everything is up to date, 3 when anything is
stale and 2 for bad usage. Builds are bit-reproducible, so a cubin differs
only when its source, flags or compiler do.

Files on disk that no emit wrote are ignored. Checking cubins needs the
CUDA compiler; with --no-compile given to diff only the sources and the
per-kernel manifests are compared (an emit recorded with --no-compile is
checked in full).`

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
	cmd.Example = `  swigen diff   # in a directory emit wrote: runs again the emit its manifest.json records
  swigen diff -o kernels   # the same for kernels/, from its parent
  swigen diff --catalog --no-compile -o /tmp/swigen-src`
	return cmd
}

func runDiff(ctx context.Context, e *env, o *emitOptions) error {
	d, err := emit.Diff(ctx, o.lib(), e.stderr)
	if d != nil {
		_ = d.Write(e.stdout) // as the rest of the output: a closed stdout is not diff's failure
	}
	switch {
	case err != nil:
		return err
	case !d.UpToDate():
		return &exitError{code: exitStale, err: errors.New(d.Summary())}
	}
	return nil
}
