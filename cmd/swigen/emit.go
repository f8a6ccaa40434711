package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen/emit"
)

// seedShape is the seed's problem (M, K, I), the default --shape.
const seedShape = emit.SeedShape

// emitOptions are the parsed flags of `swigen emit` (emit.Options, where
// the pipeline lives).
type emitOptions emit.Options

// lib returns o as the library's options, --tuned reading results DBs
// with tunedConfig.
func (o *emitOptions) lib() *emit.Options {
	lo := emit.Options(*o)
	lo.TunedConfig = tunedConfig
	return &lo
}

const emitLong = `Render kernels to CUDA C++ and compile them to cubins.

Without flags, emit writes the seed kernel (bwd_dswiglu, bf16) for sm_100a
and sm_90a with heuristic tiles for the shape --shape (M,K,I) into out/.
Flags that set a config field (--tile, --stages, --cluster, --schedule, ...)
override only that field of the heuristic choice (or of --tuned's winner).
Fields not given follow where they must: the epilogue sub-tile follows the
tile, the stages drop to the deepest ring that fits, and a schedule not
given gives way to one that takes the given fields (sm_100a's 2cta needs
tile M 256, so --tile 128x128x64 alone gets 1cta); a note says what
changed. A --schedule given is kept as is. --schedule takes the schedule
of each arch: cooperative, pingpong or overlap (bwd_dswiglu) on sm_90a,
1cta or 2cta on sm_100a; a value is applied to the selected arch where it
is legal, so --schedule pingpong,2cta sets both. --name emits one config
by its procedural name (see swigen list) exactly as named, so no field
flag may come with it; --catalog emits the whole catalog.

Every config is validated and rendered before a compiler is looked for:
an invalid config or flag combination lists every problem, exits 2 and
writes nothing. Then every config is compiled, and only then is anything
written, all files or none: they are staged in a hidden directory inside
the output directory and renamed into place, and a failure part-way puts
back what was there. Per kernel, the output directory gets <name>.cu,
<name>.json (launch manifest), <name>.<arch>.cubin and <name>.report.json
(ptxas report), plus manifest.json indexing them all. Files whose bytes
did not change are not rewritten. manifest.json also records this
command line (flags sorted, -o as ".", --nvcc left out), which swigen diff
without flags runs again, and every file written with its sha256: a
later emit into the directory removes the files of this one it does not
write (another --arch's cubin, say), as part of the same all-or-nothing
write, and only while they are unedited; it removes nothing else.

Without a CUDA compiler, emit still writes the sources and manifests
(exit 0) and says how to install one: they are useful on their own. With
--go-package or --py-package it fails instead (exit 1, nothing written):
bindings without cubins build but cannot load a kernel, and a go generate
step must not pass with them. --no-compile asks for sources (and bindings) without
cubins on purpose. sm_100a kernels are compile-verified only: no Blackwell
GPU is available to run them.`

func newEmitCmd(e *env, runF func(context.Context, *emitOptions) error) *cobra.Command {
	o := &emitOptions{}
	cmd := &cobra.Command{
		Use:   "emit",
		Short: "Render, compile and write kernels (default: the seed kernel for both archs)",
		Long:  emitLong,
		Example: `  swigen emit
  swigen emit --arch sm_90a --tile 128x256x64 --stages 3 --schedule cooperative -o out/
  swigen emit --catalog --no-compile -o /tmp/swigen-src`,
		GroupID: groupGen,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			(*emit.Options)(o).ReadFlags(cmd.Flags())
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runEmit(cmd.Context(), e, o)
		},
	}
	emit.AddFlags(cmd.Flags(), (*emit.Options)(o))
	return cmd
}

func runEmit(ctx context.Context, e *env, o *emitOptions) error {
	res, err := emit.Run(ctx, o.lib(), e.stderr)
	if err != nil {
		return emitErr(err)
	}
	res.Write(e.stdout, e.stderr)
	return nil
}

// emitErr is err of the emit library with its bad input as a usage error
// (exit 2).
func emitErr(err error) error {
	if u := (*emit.UsageError)(nil); errors.As(err, &u) {
		return usageError(err)
	}
	return err
}
