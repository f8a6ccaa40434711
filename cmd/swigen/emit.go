package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// seedShape is the seed's problem (M, K, I), the default --shape.
const seedShape = "16384,768,4608"

// sm100Note is printed whenever sm_100a kernels were compiled: they cannot
// run on any GPU swigen has.
const sm100Note = "sm_100a: compile-verified only (no Blackwell GPU here); not executed"

// emitOptions are the parsed flags of `swigen emit`. Field flags are kept
// raw; configs turns them into tiling.Configs so the rules live in one
// place and tests can check them without running anything.
type emitOptions struct {
	// Request is the config selection's flags (kernel, arch, dtype,
	// shape, name, catalog, tuned, the field flags and which were given).
	pick.Request

	Out         string
	NVCC        string
	NoCompile   bool
	AllowSpills bool
	GoPackage   string // --go-package: also write Go bindings of this package name
	PyPackage   string // --py-package: also make the output directory a Python package of this name
	// Path is --path: auto (ship a fused kernel's unfused path where the
	// measured plan takes it at some shape), fused (never), unfused
	// (always, and every call takes it).
	Path string

	// DryRun, when set, makes runEmit lay out every file in memory, write
	// nothing and hand the result to DryRun instead (swigen diff; no flag).
	DryRun func(res *gen.EmitResult, tc *toolchain.Toolchain) error
}

// name is the command the options belong to, for error messages.
func (o *emitOptions) name() string {
	if o.DryRun != nil {
		return "diff"
	}
	return "emit"
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
			o.readFlags(cmd.Flags())
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runEmit(cmd.Context(), e, o)
		},
	}
	addEmitFlags(cmd.Flags(), o)
	return cmd
}

// addEmitFlags defines emit's flags on f, parsed into o: the flags of
// emit, of diff, and of the command diff reads from an index.
func addEmitFlags(f *pflag.FlagSet, o *emitOptions) {
	f.StringSliceVar(&o.Kernels, "kernel", []string{string(tiling.KernelBwdDSwiGLU)}, "kernel kinds, repeatable or comma-separated: "+join.Strings(tiling.Kernels()))
	f.StringSliceVar(&o.Arches, "arch", []string{string(tiling.ArchSM100a), string(tiling.ArchSM90a)}, "targets, repeatable or comma-separated: "+join.Strings(tiling.Arches()))
	f.StringVar(&o.DType, "dtype", string(tiling.BF16), "operand type: "+join.Strings(tiling.DTypes()))
	f.StringVar(&o.Shape, "shape", seedShape, "problem size M,K,I the heuristic picks tiles for")
	f.StringVar(&o.Name, "name", "", "emit the config with this procedural name (from swigen list), exactly: no field flag may change it")
	f.BoolVar(&o.Catalog, "catalog", false, "emit every catalog config (filtered by --kernel/--arch/--dtype when given)")
	f.StringVar(&o.Tuned, "tuned", "", "results DB of swigen tune: use its winner for (kernel, arch, dtype, --shape) instead of the heuristic, where it has one")

	addFieldFlags(f)

	f.StringVarP(&o.Out, "out", "o", "out", "output directory")
	f.StringVar(&o.NVCC, "nvcc", "", "nvcc to use (path or directory); default: search CUDA_HOME, PATH, SWIGEN_CUDA_VENV, ...")
	f.BoolVar(&o.NoCompile, "no-compile", false, "write sources and manifests (and --go-package bindings) without cubins, on purpose")
	f.BoolVar(&o.AllowSpills, "allow-spills", false, "accept register spills instead of failing the build")
	f.StringVar(&o.Path, "path", "auto", "dispatch plan of bwd_dswiglu and fwd_gateup: auto (ship the unfused path, swigen gemm + elementwise, where the measured plan takes it at some shape), fused (fused only), unfused (every call unfused)")
	f.StringVar(&o.GoPackage, "go-package", "", "also write a Go package of this name into the output directory: embedded cubins and typed launchers")
	f.StringVar(&o.PyPackage, "py-package", "", "also make the output directory a Python package of this name (__init__.py registering its kernels with swigen_rt, for torch.ops.swigen)")
}

// addFieldFlags defines on f a flag for each knob of tiling.Knobs that
// has one, of the knob's kind. pflag holds their values; readFlags copies
// the ones given into emitOptions.Fields.
func addFieldFlags(f *pflag.FlagSet) {
	for _, k := range tiling.Knobs() {
		if k.Usage() == "" {
			continue // set by names only
		}
		switch k.Kind() {
		case tiling.FlagInt:
			f.Int(k.Flag(), 0, k.Usage())
		case tiling.FlagBool:
			f.Bool(k.Flag(), false, k.Usage())
		case tiling.FlagList:
			f.StringSlice(k.Flag(), nil, k.Usage())
		default:
			f.String(k.Flag(), "", k.Usage())
		}
	}
}

// readFlags records in o what f's command line gave: the names of the
// flags set (Changed) and the words of the field flags set (Fields).
func (o *emitOptions) readFlags(f *pflag.FlagSet) {
	o.Changed = changedFlags(f)
	o.Fields = map[string][]string{}
	for _, k := range tiling.Knobs() {
		if fl := f.Lookup(k.Flag()); fl != nil && fl.Changed {
			if sv, ok := fl.Value.(pflag.SliceValue); ok {
				o.Fields[fl.Name] = sv.GetSlice()
			} else {
				o.Fields[fl.Name] = []string{fl.Value.String()}
			}
		}
	}
}

// changedFlags returns the names of the flags set on f's command line.
func changedFlags(f *pflag.FlagSet) map[string]bool {
	m := map[string]bool{}
	f.Visit(func(fl *pflag.Flag) { m[fl.Name] = true })
	return m
}

// unrecordedFlags are the flags emitCommand leaves out: --nvcc says where
// this machine's compiler is, not what is emitted (the pinned compiler
// gives the same bytes from any path), and --help never reaches a run.
var unrecordedFlags = map[string]bool{"nvcc": true, "help": true}

// emitCommand is the command line emit records in the index, for diff
// without flags to run again in the output directory: "swigen emit", then
// every flag of o.Changed but --nvcc, one --name=value each, sorted by
// name (so the order flags were given in does not matter), a list flag's
// values joined by commas, a bool as --name or --name=false. -o is always
// there, as --out=. (the index's own directory), so neither an absolute
// path nor where emit ran from gets in; a relative --tuned is made
// relative to the output directory for the same reason.
func emitCommand(o *emitOptions) ([]string, error) {
	// A flag set bound to a copy of o formats every value the way the
	// flag parses it, so the command reads back into the same options.
	var bound emitOptions
	f := pflag.NewFlagSet("emit", pflag.ContinueOnError)
	addEmitFlags(f, &bound)
	bound = *o
	// pflag holds the field flags' values: set them from o.Fields.
	for n, words := range o.Fields {
		fl := f.Lookup(n)
		if fl == nil {
			return nil, fmt.Errorf("record the command line: no flag --%s", n)
		}
		var err error
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			err = sv.Replace(words)
		} else if len(words) == 1 {
			err = f.Set(n, words[0])
		} else {
			err = fmt.Errorf("want one value, have %q", words)
		}
		if err != nil {
			return nil, fmt.Errorf("record the command line: --%s: %w", n, err)
		}
	}
	names := []string{"out"}
	for n := range o.Changed {
		if !unrecordedFlags[n] && n != "out" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	cmd := []string{"swigen", "emit"}
	for _, n := range names {
		fl := f.Lookup(n)
		if fl == nil {
			return nil, fmt.Errorf("record the command line: no flag --%s", n)
		}
		var v string
		switch {
		case n == "out":
			v = "."
		case n == "tuned":
			var err error
			if v, err = pathFromOut(o.Out, o.Tuned); err != nil {
				return nil, err
			}
		case fl.Value.Type() == "bool":
			if fl.Value.String() == "true" {
				cmd = append(cmd, "--"+n)
				continue
			}
			v = fl.Value.String()
		default:
			if sv, ok := fl.Value.(pflag.SliceValue); ok {
				v = strings.Join(sv.GetSlice(), ",")
			} else {
				v = fl.Value.String()
			}
		}
		cmd = append(cmd, "--"+n+"="+v)
	}
	return cmd, nil
}

// pathFromOut returns path (relative to the working directory, or
// absolute) as emit records it: an absolute path as given, a relative one
// relative to the output directory out, slash-separated.
func pathFromOut(out, path string) (string, error) {
	if path == "" || filepath.IsAbs(path) {
		return path, nil
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return "", fmt.Errorf("-o %s: %w", out, err)
	}
	absPath, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("--tuned %s: %w", path, err)
	}
	rel, err := filepath.Rel(absOut, absPath)
	if err != nil {
		return "", fmt.Errorf("--tuned %s relative to -o %s: %w", path, out, err)
	}
	return filepath.ToSlash(rel), nil
}

// validate checks every config and reports all problems of all configs.
func validate(cfgs []tiling.Config) error {
	var errs []error
	for _, c := range cfgs {
		var ve *tiling.ValidationError
		err := c.Validate()
		switch {
		case err == nil:
		case errors.As(err, &ve):
			errs = append(errs, fmt.Errorf("invalid config %s:\n  %s", c.Name(), strings.ReplaceAll(ve.Error(), "\n", "\n  ")))
		default:
			errs = append(errs, fmt.Errorf("invalid config %s: %w", c.Name(), err))
		}
	}
	return errors.Join(errs...)
}
