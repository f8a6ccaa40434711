// Package emit is swigen emit and swigen diff as a library: it selects
// the configs a command line asks for, renders and compiles them, writes
// them all or none (with the Go and Python bindings and the index that
// records the command line), and compares such an emit with the files on
// disk.
package emit

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// SeedShape is the seed's problem (M, K, I), the default --shape.
const SeedShape = "16384,768,4608"

// SM100Note is printed whenever sm_100a kernels were compiled: they
// cannot run on any GPU swigen has.
const SM100Note = "sm_100a: compile-verified only (no Blackwell GPU here); not executed"

// Options are the parsed flags of `swigen emit` (and of diff, which takes
// the same). Field flags are kept raw; the selection (pick.Request) turns
// them into tiling.Configs so the rules live in one place.
type Options struct {
	// Request is the config selection's flags (kernel, arch, dtype,
	// shape, name, catalog, tuned, the field flags and which were given).
	// Its TunedConfig reads --tuned's results DB.
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

	// Progress, when set, gets a line per compile as it finishes
	// (gen.EmitOptions.Progress); no flag sets it: swigen emit passes its
	// stderr when that is a terminal.
	Progress io.Writer

	// Force is --force: replace an index or bindings file in -o that no
	// emit wrote.
	Force bool
}

// AddFlags defines emit's flags on f, parsed into o: the flags of emit,
// of diff, and of the command diff reads from an index.
func AddFlags(f *pflag.FlagSet, o *Options) {
	f.StringSliceVar(&o.Kernels, "kernel", []string{string(tiling.DefaultKernel())}, "kernel kinds, repeatable or comma-separated: "+join.Strings(tiling.Kernels()))
	f.StringSliceVar(&o.Arches, "arch", []string{string(tiling.ArchSM100a), string(tiling.ArchSM90a)}, "targets, repeatable or comma-separated: "+join.Strings(tiling.Arches()))
	f.StringVar(&o.DType, "dtype", string(tiling.DefaultDType), "operand type: "+join.Strings(tiling.DTypes()))
	f.StringVar(&o.Shape, "shape", SeedShape, "problem size the heuristic picks tiles for: M,K,I, or M,N,K for gemm (keyed M=..,K=..,I=.. for every kind)")
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
	f.BoolVar(&o.Force, "force", false, "replace a manifest.json, Go bindings or __init__.py in -o that no swigen emit wrote (by default emit stops, naming it)")
	f.StringVar(&o.PyPackage, "py-package", "", "also make the output directory a Python package of this name (__init__.py registering its kernels with swigen_rt, for torch.ops.swigen)")
}

// addFieldFlags defines on f a flag for each knob of tiling.Knobs that
// has one, of the knob's kind. pflag holds their values; ReadFlags copies
// the ones given into Options.Fields.
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

// ReadFlags records in o what f's command line gave: the names of the
// flags set (Changed) and the words of the field flags set (Fields).
func (o *Options) ReadFlags(f *pflag.FlagSet) {
	o.Changed = map[string]bool{}
	f.Visit(func(fl *pflag.Flag) { o.Changed[fl.Name] = true })
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

// unrecordedFlags are the flags Command leaves out: --nvcc says where
// this machine's compiler is, not what is emitted (the pinned compiler
// gives the same bytes from any path), --force is a one-time permission,
// and --help never reaches a run.
var unrecordedFlags = map[string]bool{"nvcc": true, "help": true, "force": true}

// RecordedMode reports whether o was given no flag but those emit does
// not record (--nvcc) and -o: then diff checks a directory by the command
// its index records (in -o's directory when given).
func (o *Options) RecordedMode() bool {
	for n := range o.Changed {
		if !unrecordedFlags[n] && n != "out" {
			return false
		}
	}
	return true
}

// Command is the command line emit records in the index, for diff
// without flags to run again in the output directory: "swigen emit", then
// every flag of o.Changed but --nvcc, one --name=value each, sorted by
// name (so the order flags were given in does not matter), a list flag's
// values joined by commas, a bool as --name or --name=false. -o is always
// there, as --out=. (the index's own directory), so neither an absolute
// path nor where emit ran from gets in; a relative --tuned is made
// relative to the output directory for the same reason.
func Command(o *Options) ([]string, error) {
	f, err := boundFlags(o)
	if err != nil {
		return nil, err
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

// boundFlags returns emit's flag set holding o's values: a flag set
// bound to a copy of o formats every value the way the flag parses it,
// so the command reads back into the same options.
func boundFlags(o *Options) (*pflag.FlagSet, error) {
	var bound Options
	f := pflag.NewFlagSet("emit", pflag.ContinueOnError)
	AddFlags(f, &bound)
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
	return f, nil
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
