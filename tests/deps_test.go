package tests

import (
	"os/exec"
	"strings"
	"testing"
)

// generatorDeps are packages only the generator needs. A binary that
// launches swigen kernels (the runtime, the generated bindings) must not
// link them: they would bring the templates, jennifer and the compiler
// driver into every user's program.
var generatorDeps = []string{
	"github.com/swigen/swigen/gen",
	"github.com/swigen/swigen/gen/builder",
	"github.com/swigen/swigen/gen/gobind",
	"github.com/swigen/swigen/gen/toolchain",
	"github.com/swigen/swigen/gen/view",
	"github.com/dave/jennifer/jen",
	"text/template",
}

// TestRuntimeDoesNotImportGen runs go list -deps over the runtime, the lab
// and the generated example packages and fails on any generator package;
// the runtime and the bindings, which end up in users' binaries, must not
// start processes either (os/exec). lab/tune, which runs its measurement
// workers as processes, is the one lab package allowed os/exec. perfmodel, whose
// projections run anywhere, links neither the generator nor the driver;
// the generator links no driver; the generator and the CLI do not link
// the protocol model.
func TestRuntimeDoesNotImportGen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pkgs      []string
		forbidden []string
		allowExec string // a package that may depend on os/exec
	}{
		{[]string{"./examples/kernels", "./examples/matmul"}, append([]string{"os/exec"}, generatorDeps...), ""},
		{[]string{"./runtime/..."}, append([]string{"os/exec"}, generatorDeps...), ""},
		{[]string{"./lab/..."}, generatorDeps, ""},
		{[]string{"./lab/..."}, []string{"os/exec"}, "github.com/swigen/swigen/lab/tune"},
		// Projections need no GPU: perfmodel links neither the driver nor the generator.
		{[]string{"./perfmodel"}, append([]string{"github.com/swigen/swigen/runtime/cu", "github.com/ebitengine/purego", "os/exec"}, generatorDeps...), ""},
		// The generator reads the elementwise module's CUDA text from
		// templates/kernelsrc: rendering, compiling and writing kernels
		// links no driver (only gen/builder and gen/doctor, which load
		// cubins and probe GPUs, do).
		{[]string{"./gen", "./gen/view", "./gen/gobind", "./gen/pybind", "./gen/emit", "./gen/toolchain", "./gen/wheel"}, []string{"github.com/swigen/swigen/runtime/cu", "github.com/ebitengine/purego"}, ""},
		// The barrier-protocol model checks the generator from outside:
		// neither the generator nor the swigen binary carries it.
		{[]string{"./gen/...", "./cmd/swigen"}, []string{"github.com/swigen/swigen/protocol", "github.com/swigen/swigen/protocol/fromview"}, ""},
	}
	for _, tt := range tests {
		for pkg, deps := range listDeps(t, tt.pkgs...) {
			if pkg == tt.allowExec {
				continue
			}
			for _, f := range tt.forbidden {
				if deps[f] {
					t.Errorf("%s depends on %s", pkg, f)
				}
			}
		}
	}
}

// TestRuntimeIsWhatUsersLink keeps runtime/ to the packages a user's
// binary links: nothing under runtime/ depends on lab/ (verification,
// benchmarks, tuning, references and their numerics), and every runtime
// package is one the generated bindings (examples/) link, so a package
// only the lab needs lives under lab/.
func TestRuntimeIsWhatUsersLink(t *testing.T) {
	t.Parallel()
	const mod = "github.com/swigen/swigen/"
	runtime := listDeps(t, "./runtime/...")
	for pkg, deps := range runtime {
		for d := range deps {
			if strings.HasPrefix(d, mod+"lab/") {
				t.Errorf("%s depends on %s: runtime/ must not link lab/", pkg, d)
			}
		}
	}
	linked := map[string]bool{}
	for pkg, deps := range listDeps(t, "./examples/kernels", "./examples/matmul") {
		linked[pkg] = true
		for d := range deps {
			linked[d] = true
		}
	}
	for pkg := range runtime {
		if !linked[pkg] {
			t.Errorf("%s is under runtime/ but the generated bindings do not link it: move it to lab/", pkg)
		}
	}
}

// listDeps returns each package matched by patterns (relative to the
// module root) with the set of packages it depends on, as go list -deps
// would list them for it alone.
func listDeps(t *testing.T, patterns ...string) map[string]map[string]bool {
	t.Helper()
	args := append([]string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = ".." // the module root: the patterns are relative to it
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	res := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		deps := map[string]bool{}
		for _, d := range f[1:] {
			deps[d] = true
		}
		res[f[0]] = deps
	}
	if len(res) == 0 {
		t.Fatalf("go %s listed no packages", strings.Join(args, " "))
	}
	return res
}

// layers orders swigen's packages from the bottom up: a package imports
// only packages of lower layers, so the import graph has no cycle and
// every arrow points down. A new package takes its place here. internal/
// holds only leaf helpers (no swigen imports), so they all sit in the
// bottom layer and any package may use them.
var layers = [][]string{
	{"internal/join", "internal/textdiff", "internal/atomicfile", "internal/badinput", "internal/dirlock", "internal/proc", "internal/readfile", "internal/tty", "protocol", "runtime/cu", "templates", "templates/kernelsrc", "python"},
	{"tiling", "gen/toolchain"},
	{"tiling/tilingtest", "tiling/pick", "manifest", "lab/num", "runtime/elementwise", "gen/doctor", "gen/toolchain/install", "gen/toolchain/toolchaintest"},
	{"perfmodel", "runtime/launch", "gen/view"},
	{"gen", "lab/ref", "lab/baseline", "protocol/fromview"},
	{"gen/gobind", "gen/pybind", "gen/builder", "lab/check", "lab/bench"},
	{"lab/mlp", "tests/gputest", "gen/emit"},
	{"lab/tune", "gen/wheel"},
	{"cmd/swigen", "examples/kernels", "examples/matmul", "examples", "tests"},
}

// TestLayerOrder checks that no swigen package imports one of its own
// layer or above (go list's direct imports, tests left out), that every
// package has a layer, and that the packages of internal/ are leaves.
func TestLayerOrder(t *testing.T) {
	t.Parallel()
	const mod = "github.com/swigen/swigen/"
	layer := map[string]int{}
	for i, ps := range layers {
		for _, p := range ps {
			layer[p] = i
		}
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		l, ok := layer[pkg]
		if !ok {
			t.Errorf("%s has no layer in tests/deps_test.go's layers: add it", pkg)
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			if strings.HasPrefix(pkg, "internal/") {
				t.Errorf("%s imports %s: internal/ holds leaf helpers only (move it to a package of its own)", pkg, dep)
			}
			if dl, ok := layer[dep]; ok && dl >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", pkg, l, dep, dl)
			}
		}
	}
}
