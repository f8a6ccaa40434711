package main

import (
	"context"

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

func newEmitCmd(e *env, runF func(context.Context, *emitOptions) error) *cobra.Command {
	o := &emitOptions{}
	cmd := &cobra.Command{
		Use:   "emit",
		Short: "Render, compile and write kernels (default: the seed kernel for both archs, with its unfused path)",
		Long:  longHelp("emit"),
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
	lo := o.lib()
	if e.stderrTTY {
		lo.Progress = e.stderr
	}
	res, err := emit.Run(ctx, lo, e.stderr)
	if err != nil {
		return err
	}
	res.Write(e.stdout, e.stderr)
	return nil
}
