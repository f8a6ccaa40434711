package gen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/elementwise"
	"github.com/swigen/swigen/tiling"
)

// ElementwiseEntry names the elementwise module's files for one arch: the
// second half of the unfused paths of an emit's dispatch plans.
type ElementwiseEntry struct {
	Arch        tiling.Arch `json:"arch"`
	Source      string      `json:"source"`
	Cubin       string      `json:"cubin,omitempty"`
	CubinSHA256 string      `json:"cubin_sha256,omitempty"`
}

// ElementwiseSource is the file name of the elementwise module's source.
const ElementwiseSource = elementwise.ModuleName + ".cu"

// ElementwiseCubin is the file name of the elementwise module's cubin for
// arch a (what a manifest.Dispatch names).
func ElementwiseCubin(a tiling.Arch) string {
	return elementwise.ModuleName + "." + string(a) + ".cubin"
}

// dispatchArches checks every dispatch plan against the emit's kernels
// (the fused kernel and its gemm are both in it, of one arch; the plan
// names that arch's elementwise cubin) and returns the archs the
// elementwise module ships for, sorted.
func dispatchArches(ds []manifest.Dispatch, kernels []EmittedKernel) ([]tiling.Arch, error) {
	byName := map[string]tiling.Config{}
	for _, k := range kernels {
		byName[k.Artifact.Name] = k.Artifact.Config
	}
	var arches []tiling.Arch
	for _, d := range ds {
		if err := d.Check(); err != nil {
			return nil, fmt.Errorf("emit: %w", err)
		}
		f, okF := byName[d.Fused]
		g, okG := byName[d.Gemm]
		switch {
		case !okF || !okG:
			return nil, fmt.Errorf("emit: dispatch %s: its fused kernel and gemm %s must both be emitted", d.Fused, d.Gemm)
		case !tiling.HasUnfused(f.Kernel) || g.Kernel != tiling.KernelGEMM || g.Arch != f.Arch:
			return nil, fmt.Errorf("emit: dispatch %s: %s is not an unfused path's gemm of its arch", d.Fused, d.Gemm)
		case d.Elementwise != ElementwiseCubin(f.Arch):
			return nil, fmt.Errorf("emit: dispatch %s: elementwise %q, want %s", d.Fused, d.Elementwise, ElementwiseCubin(f.Arch))
		}
		if !slices.Contains(arches, f.Arch) {
			arches = append(arches, f.Arch)
		}
	}
	slices.Sort(arches)
	return arches, nil
}

// compileElementwise compiles the elementwise module for every arch (nil
// results without a toolchain).
func compileElementwise(ctx context.Context, arches []tiling.Arch, o EmitOptions) (map[tiling.Arch]*toolchain.BuildResult, error) {
	out := map[tiling.Arch]*toolchain.BuildResult{}
	if o.Toolchain == nil {
		return out, nil
	}
	for _, a := range arches {
		co := o.Compile
		co.Arch = string(a)
		b, err := o.Toolchain.Compile(ctx, elementwise.ModuleName, elementwise.Source(), co)
		if err != nil {
			return nil, fmt.Errorf("emit %s (%s): %w", elementwise.ModuleName, a, err)
		}
		out[a] = b
	}
	return out, nil
}

// elementwiseFiles lays out the module's source once and its cubin per
// arch, and returns their index entries.
func elementwiseFiles(arches []tiling.Arch, builds map[tiling.Arch]*toolchain.BuildResult) ([]OutputFile, []ElementwiseEntry) {
	if len(arches) == 0 {
		return nil, nil
	}
	files := []OutputFile{{ElementwiseSource, elementwise.Source()}}
	var es []ElementwiseEntry
	for _, a := range arches {
		e := ElementwiseEntry{Arch: a, Source: ElementwiseSource}
		if b := builds[a]; b != nil {
			sum := sha256.Sum256(b.Cubin)
			e.Cubin, e.CubinSHA256 = ElementwiseCubin(a), hex.EncodeToString(sum[:])
			files = append(files, OutputFile{e.Cubin, b.Cubin})
		}
		es = append(es, e)
	}
	return files, es
}
