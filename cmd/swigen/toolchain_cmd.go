package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/gen/toolchain/install"
)

// toolchainInstallOptions are the parsed flags of `swigen toolchain install`.
type toolchainInstallOptions struct {
	Venv   string // "" means toolchain.DefaultVenv()
	Python string
	DryRun bool

	venvSet bool // --venv was given (so an empty one is a mistake)
}

// validate checks the flags and returns the absolute install directory.
func (o *toolchainInstallOptions) validate() (string, error) {
	if strings.TrimSpace(o.Python) == "" {
		return "", usageError(errors.New("toolchain install: --python is empty; want a Python 3 interpreter such as python3"))
	}
	venv := o.Venv
	if o.venvSet && strings.TrimSpace(venv) == "" {
		return "", usageError(errors.New("toolchain install: --venv is empty; name a directory, or leave the flag out for the default"))
	}
	if venv == "" {
		v, err := toolchain.DefaultVenv()
		if err != nil {
			return "", usageError(fmt.Errorf("toolchain install: no --venv given: %w", err))
		}
		venv = v
	}
	abs, err := filepath.Abs(venv)
	if err != nil {
		return "", usageError(fmt.Errorf("toolchain install: --venv %q: %w", venv, err))
	}
	return abs, nil
}

func newToolchainCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "toolchain",
		Short: "Install the pinned CUDA compiler (nvcc, ptxas, cuobjdump) swigen compiles with",
		Long:  longHelp("toolchain"),
		Example: `  swigen toolchain install
  swigen toolchain install --dry-run`,
		GroupID: groupGen,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newToolchainInstallCmd(e, nil))
	return cmd
}

func newToolchainInstallCmd(e *env, runF func(context.Context, *toolchainInstallOptions) error) *cobra.Command {
	o := &toolchainInstallOptions{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the pinned CUDA compiler wheels from PyPI into the venv swigen searches",
		Long: `Install the pinned CUDA compiler, the Python wheels

  ` + strings.Join(toolchain.Pins, "\n  ") + `

into a venv at --venv (default $SWIGEN_CUDA_VENV, else ~/.cache/swigen-cuda),
which swigen searches for nvcc. It runs 'PYTHON -m venv DIR' and
'DIR/bin/python -m pip install' of the pinned wheels (binary wheels only);
where the venv module is missing (Debian and Ubuntu without python3-venv) it
installs with 'PYTHON -m pip install --target DIR/lib/python3/site-packages'
instead, which swigen searches too.

It then checks that every tool is there and that nvcc runs, and writes
DIR/.swigen-pins last: an install that failed half-way is never taken for a
ready one. A DIR whose .swigen-pins matches this swigen's pins and whose
tools are present is reused without touching the network; when the pins
differ, the wheels are reinstalled.

The first install downloads a few hundred MB from PyPI (pip honours its
usual settings, e.g. PIP_INDEX_URL for a mirror). Exit 1 when python, pip
or the installed tools fail, with the end of their output.`,
		Example: `  swigen toolchain install
  swigen toolchain install --dry-run
  swigen toolchain install --venv /opt/swigen-cuda --python python3.12`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.venvSet = cmd.Flags().Changed("venv")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runToolchainInstall(cmd.Context(), o, install.New(e.stdout, e.stderr))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Venv, "venv", "", "install into this directory (default $SWIGEN_CUDA_VENV, else ~/.cache/swigen-cuda)")
	f.StringVar(&o.Python, "python", "python3", "the Python 3 interpreter that creates the venv and runs pip")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the commands instead of running them (also where the venv would be reused); install nothing")
	return cmd
}

// runToolchainInstall installs with in (install.Installer) into the
// flags' directory; a directory it must not install into is exit 2.
func runToolchainInstall(ctx context.Context, o *toolchainInstallOptions, in *install.Installer) error {
	venv, err := o.validate()
	if err != nil {
		return err
	}
	return in.Install(ctx, venv, o.Python, o.DryRun)
}
