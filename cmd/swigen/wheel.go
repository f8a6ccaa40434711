package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen/emit"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/gen/wheel"
	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
)

// wheelOptions are the flags of swigen wheel.
type wheelOptions struct {
	out     string
	arches  []string
	dtypes  []string
	kernels []string
	nvcc    string
	list    bool
}

func newWheelCmd(e *env, runF func(context.Context, *wheelOptions) error) *cobra.Command {
	o := &wheelOptions{}
	cmd := &cobra.Command{
		Use:   "wheel",
		Short: "Build a pip-installable wheel of prebuilt kernels and the Python runtime",
		Long:  longHelp("wheel"),
		Example: `  swigen wheel -o dist
  swigen wheel -o dist --arch sm_90a,sm_100a`,
		GroupID: groupGen,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runWheel(cmd.Context(), e, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "dist", "directory the wheel is written into")
	f.StringSliceVar(&o.arches, "arch", []string{string(tiling.ArchSM90a)}, "targets, repeatable or comma-separated: "+join.Strings(tiling.Arches()))
	f.StringSliceVar(&o.dtypes, "dtype", []string{string(tiling.DefaultDType)}, "operand types, repeatable or comma-separated: "+join.Strings(tiling.DTypes()))
	f.StringSliceVar(&o.kernels, "kernel", nil, "ship only these kinds (default: every kind the PyTorch ops run): "+join.Strings(tiling.AllKernels()))
	f.StringVar(&o.nvcc, "nvcc", "", "nvcc to use (path or directory); default: search CUDA_HOME, PATH, SWIGEN_CUDA_VENV, ...")
	f.BoolVar(&o.list, "list", false, "also print the wheel's files (name, size, sha256)")
	return cmd
}

// options parses o's words; every error is a usage error.
func (o *wheelOptions) options() (wheel.Options, error) {
	var w wheel.Options
	if o.out == "" {
		return w, errors.New("wheel: -o: empty output directory")
	}
	if fi, err := os.Stat(o.out); err == nil && !fi.IsDir() {
		return w, fmt.Errorf("wheel: -o %s: exists and is not a directory", o.out)
	}
	for _, s := range o.arches {
		a, err := tiling.ParseArch(s)
		if err != nil {
			return w, fmt.Errorf("wheel: --arch: %w", err)
		}
		w.Arches = append(w.Arches, a)
	}
	for _, s := range o.dtypes {
		d, err := tiling.ParseDType(s)
		if err != nil {
			return w, fmt.Errorf("wheel: --dtype: %w", err)
		}
		w.DTypes = append(w.DTypes, d)
	}
	for _, s := range o.kernels {
		k, err := tiling.ParseKernel(s)
		if err != nil {
			return w, fmt.Errorf("wheel: --kernel: %w", err)
		}
		w.Kernels = append(w.Kernels, k)
	}
	return w, wheel.Check(w)
}

func runWheel(ctx context.Context, e *env, o *wheelOptions) error {
	w, err := o.options()
	if err != nil {
		return usageError(err)
	}
	tc, err := toolchain.Find(toolchain.FindOptions{NVCC: o.nvcc})
	if err != nil {
		return fmt.Errorf("wheel: the kernels must be compiled: %w", err)
	}
	w.Toolchain = tc
	fmt.Fprintf(e.stderr, "compiling with %s\n", tc)
	whl, err := wheel.Build(ctx, w)
	if err != nil {
		return fmt.Errorf("%w; nothing written", err)
	}
	path := filepath.Join(o.out, whl.Name)
	if err := writeNew(o.out, path, whl.Data); err != nil {
		return fmt.Errorf("wheel: %w", err)
	}
	if o.list {
		for _, f := range whl.Files {
			fmt.Fprintf(e.stdout, "%-64s %9d %s\n", f.Name, f.Size, f.SHA256)
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d kernels, %d files, %d bytes\n", path, whl.Kernels, len(whl.Files), len(whl.Data))
	for _, n := range whl.Notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	if slices.Contains(w.Arches, tiling.ArchSM100a) {
		fmt.Fprintf(e.stderr, "note: %s (marked so in the wheel)\n", emit.SM100Note)
	}
	return nil
}

// writeNew writes data to path in dir through a temporary file renamed
// into place, creating dir when missing; on failure it removes what it
// made (the temporary file, and dir when it created it).
func writeNew(dir, path string, data []byte) (err error) {
	made := false
	if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		made = true
	}
	defer func() {
		if err != nil && made {
			os.RemoveAll(dir)
		}
	}()
	f, err := os.CreateTemp(dir, ".swigen-wheel-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err = errors.Join(werr, cerr); err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
