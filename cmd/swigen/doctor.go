package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen/doctor"
	"github.com/swigen/swigen/gen/toolchain"
)

// doctorOptions are the parsed flags of `swigen doctor`.
type doctorOptions doctor.Options

func newDoctorCmd(e *env, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	o := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report the CUDA compiler, driver and GPUs, and which targets build and run here",
		Long:  longHelp("doctor"),
		Example: `  swigen doctor
  swigen doctor --nvcc /usr/local/cuda/bin/nvcc
  swigen doctor --no-build`,
		GroupID: groupInfo,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			if o.NVCC != "" {
				// An nvcc asked for by path must exist: a typo is bad
				// input, not a report of a broken machine.
				if err := toolchain.CheckNVCCPath(o.NVCC); err != nil {
					return usageError(fmt.Errorf("doctor: --nvcc %q: %w", o.NVCC, err))
				}
			}
			return doctor.Gather(cmd.Context(), doctor.Options(*o), doctor.RealProbes).Write(e.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.NVCC, "nvcc", "", "check this nvcc (path or directory) instead of searching")
	f.BoolVar(&o.NoBuild, "no-build", false, "skip the probe compiles")
	return cmd
}
