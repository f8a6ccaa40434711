package wheel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/emit"
	"github.com/swigen/swigen/gen/pybind"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/python"
	"github.com/swigen/swigen/tiling"
)

// BundleFormat is the format tag of BundleFile (swigen_rt.select.BUNDLE_FORMAT).
const BundleFormat = "swigen-bundle-v1"

// Bundle is BundleFile: what the wheel's kernel package holds and how
// swigen_rt picks among it.
type Bundle struct {
	Format string `json:"format"`
	// RuntimeVersion is the swigen_rt package format (pybind.RuntimeVersion).
	RuntimeVersion int          `json:"runtime_version"`
	Version        string       `json:"version"`
	Toolchain      string       `json:"toolchain"`
	Arches         []BundleArch `json:"arches"`
	// Selection is the heuristic as data (tiling.SelectionTable).
	Selection *tiling.SelectionTable `json:"selection"`
	Kernels   []BundleKernel         `json:"kernels"`
	// Elementwise is the elementwise module's cubin per arch of a plan.
	Elementwise []BundleElementwise `json:"elementwise"`
	// Dispatch is the dispatch plans emit --path auto ships with them.
	Dispatch []manifest.Dispatch `json:"dispatch"`
}

// BundleArch is one arch of the bundle; CompileOnly marks an arch no GPU
// here runs (sm_100a: compile-verified only).
type BundleArch struct {
	Arch        tiling.Arch `json:"arch"`
	CompileOnly bool        `json:"compile_only"`
	Note        string      `json:"note,omitempty"`
}

// BundleKernel is one kernel's files, relative to the package.
type BundleKernel struct {
	Name     string      `json:"name"`
	Kernel   string      `json:"kernel"`
	Arch     tiling.Arch `json:"arch"`
	Manifest string      `json:"manifest"`
	Cubin    string      `json:"cubin"`
	SHA256   string      `json:"sha256"`
	// SourceSHA256 is the sha256 of the CUDA source the cubin was
	// compiled from (swigen emit writes it as <name>.cu).
	SourceSHA256 string `json:"source_sha256"`
}

// BundleElementwise is one elementwise cubin.
type BundleElementwise struct {
	Arch   tiling.Arch `json:"arch"`
	Cubin  string      `json:"cubin"`
	SHA256 string      `json:"sha256"`
}

// packageFiles is every file of the wheel but its dist-info, by path in
// the wheel: swigen_rt, and Package with its kernels' manifests and
// cubins, the elementwise cubins and the bundle.
func packageFiles(o Options, sel *tiling.SelectionTable, ds []manifest.Dispatch, idx gen.Index, out []gen.OutputFile) ([]gen.OutputFile, error) {
	files, version, err := runtimeFiles()
	if err != nil {
		return nil, err
	}
	b := Bundle{Format: BundleFormat, RuntimeVersion: pybind.RuntimeVersion, Version: version, Toolchain: idx.Toolchain,
		Selection: sel, Dispatch: dispatchJSON(ds)}
	for _, a := range o.Arches {
		ba := BundleArch{Arch: a, CompileOnly: a != tiling.ArchSM90a}
		if ba.CompileOnly {
			ba.Note = emit.SM100Note
		}
		b.Arches = append(b.Arches, ba)
	}
	keep := map[string]bool{}
	sums := map[string]string{}
	for _, f := range out {
		sum := sha256.Sum256(f.Data)
		sums[f.Name] = hex.EncodeToString(sum[:])
	}
	for _, k := range idx.Kernels {
		if k.Cubin == "" {
			return nil, fmt.Errorf("wheel: %s: not compiled", k.Name)
		}
		b.Kernels = append(b.Kernels, BundleKernel{Name: k.Name, Kernel: k.Kernel, Arch: k.Arch, Manifest: k.Manifest, Cubin: k.Cubin, SHA256: k.CubinSHA256,
			SourceSHA256: sums[k.Source]})
		keep[k.Manifest], keep[k.Cubin] = true, true
	}
	b.Elementwise = []BundleElementwise{}
	for _, e := range idx.Elementwise {
		b.Elementwise = append(b.Elementwise, BundleElementwise{Arch: e.Arch, Cubin: e.Cubin, SHA256: e.CubinSHA256})
		keep[e.Cubin] = true
	}
	for _, f := range out {
		if keep[f.Name] {
			files = append(files, gen.OutputFile{Name: path.Join(Package, f.Name), Data: f.Data})
		}
	}
	data, err := json.MarshalIndent(b, "", " ")
	if err != nil {
		return nil, fmt.Errorf("wheel: bundle: %w", err)
	}
	files = append(files,
		gen.OutputFile{Name: path.Join(Package, BundleFile), Data: append(data, '\n')},
		gen.OutputFile{Name: path.Join(Package, "__init__.py"), Data: initPy(b)})
	slices.SortFunc(files, func(x, y gen.OutputFile) int { return cmpString(x.Name, y.Name) })
	return files, nil
}

var versionRE = regexp.MustCompile(`(?m)^__version__ = "([0-9][0-9A-Za-z.+-]*)"$`)

// runtimeFiles is swigen_rt's files (python.Runtime) under swigen_rt/,
// and its __version__, the wheel's version.
func runtimeFiles() ([]gen.OutputFile, string, error) {
	var files []gen.OutputFile
	err := fs.WalkDir(python.Runtime, "swigen_rt", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(python.Runtime, p)
		files = append(files, gen.OutputFile{Name: p, Data: data})
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("wheel: runtime: %w", err)
	}
	for _, f := range files {
		if f.Name == "swigen_rt/__init__.py" {
			if m := versionRE.FindSubmatch(f.Data); m != nil {
				return files, string(m[1]), nil
			}
		}
	}
	return nil, "", fmt.Errorf("wheel: runtime: swigen_rt/__init__.py has no line __version__ = \"X.Y.Z\"")
}

// initPy is Package's __init__.py: documentation only. swigen_rt finds
// the bundle by the package's location and loads a kernel on first use.
func initPy(b Bundle) []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Code generated by swigen wheel. DO NOT EDIT.\n")
	fmt.Fprintf(&w, "\"\"\"%s %s: swigen's prebuilt kernels for PyTorch (nvcc %s).\n\n", Package, b.Version, b.Toolchain)
	fmt.Fprintf(&w, "swigen_rt's ops pick a kernel per call shape from %s (the heuristic of\n", BundleFile)
	fmt.Fprintf(&w, "swigen, as data) wherever no imported package emitted with\n")
	fmt.Fprintf(&w, "`swigen emit --py-package` registers one; nothing loads until a call.\n\n")
	for _, a := range b.Arches {
		fmt.Fprintf(&w, "%s", a.Arch)
		if a.CompileOnly {
			fmt.Fprintf(&w, " (%s)", a.Note)
		}
		fmt.Fprintf(&w, "\n")
	}
	fmt.Fprintf(&w, "\"\"\"\n\n__version__ = %q\n", b.Version)
	return w.Bytes()
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
