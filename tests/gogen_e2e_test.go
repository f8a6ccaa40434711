package tests

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

const gobindGoldenDir = "testdata/gobind"

// bindIndex builds the index and manifests an emit of cfgs would give,
// without compiling: with compiled set, every kernel gets a cubin entry
// whose sha256 is that of a fixed fake cubin, so the goldens do not depend
// on the compiler's bytes.
func bindIndex(t *testing.T, cfgs []tiling.Config, compiled bool) (gen.Index, []manifest.Manifest) {
	t.Helper()
	cfgs = slices.Clone(cfgs)
	slices.SortFunc(cfgs, func(a, b tiling.Config) int { return strings.Compare(a.Name(), b.Name()) })
	idx := gen.Index{Kernels: []gen.IndexEntry{}}
	if compiled {
		idx.Toolchain = "13.0.88"
	}
	var mans []manifest.Manifest
	for _, c := range cfgs {
		a := render(t, c)
		e := gen.IndexEntry{Name: a.Name, Kernel: string(c.Kernel), Arch: c.Arch, ConfigHash: a.Manifest.ConfigHash,
			Source: a.Name + ".cu", Manifest: a.Name + ".json"}
		if compiled {
			sum := sha256.Sum256([]byte("fake cubin of " + a.Name))
			e.Cubin = a.Name + "." + string(c.Arch) + ".cubin"
			e.CubinSHA256 = hex.EncodeToString(sum[:])
			e.Report = a.Name + ".report.json"
		}
		idx.Kernels = append(idx.Kernels, e)
		mans = append(mans, a.Manifest)
	}
	return idx, mans
}

func seedConfigs(t *testing.T) []tiling.Config {
	t.Helper()
	var out []tiling.Config
	for _, a := range []tiling.Arch{tiling.ArchSM90a, tiling.ArchSM100a} {
		c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// kindConfigs is the heuristic sm_90a config of every kernel kind at the
// seed shape: the kernels of the downstream mlp package.
func kindConfigs(t *testing.T) []tiling.Config {
	t.Helper()
	var out []tiling.Config
	for _, k := range tiling.Kernels() {
		c, err := tiling.Heuristic(k, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestGoBindingsGolden pins the generated Go bindings: the seed kernels
// for both archs compiled (per-name launchers plus the arch-dispatching
// BwdDswiglu) and sources only (no cubin embedded), one sm_90a kernel of
// every kind (a launcher per kind, each with its argument type, and a
// dispatcher per kind), and the sm_90a catalog (several kernels per arch
// and kind: no dispatcher). Regenerate with
//
//	go test ./tests -run GoBindingsGolden -update
func TestGoBindingsGolden(t *testing.T) {
	var sm90 []tiling.Config
	for _, c := range tiling.Catalog() {
		if c.Arch == tiling.ArchSM90a {
			sm90 = append(sm90, c)
		}
	}
	for _, tt := range []struct {
		name     string
		pkg      string
		cfgs     []tiling.Config
		compiled bool
	}{
		{"seed_compiled", "kernels", seedConfigs(t), true},
		{"seed_sources_only", "kernels", seedConfigs(t), false},
		{"kinds_sm90a", "mlp", kindConfigs(t), true},
		{"catalog_sm90a", "sm90", sm90, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			idx, mans := bindIndex(t, tt.cfgs, tt.compiled)
			f, err := gen.GoBindings(tt.pkg, idx, mans)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(gobindGoldenDir, tt.name+".go.golden")
			if *update {
				if err := os.MkdirAll(gobindGoldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./tests -run GoBindingsGolden -update)", err)
			}
			if diff := cmp.Diff(string(want), string(f.Data)); diff != "" {
				t.Errorf("%s is stale (-want +got); run go test ./tests -run GoBindingsGolden -update:\n%s", path, diff)
			}
		})
	}
}

// goTool returns the go command, or skips t.
func goTool(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command in PATH: %v", err)
	}
	return g
}

// repoRoot is the module root (tests/ is one level down).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// offlineGoEnv makes the go command resolve everything from the module
// cache and the replace directive: no proxy, no checksum database. swigen's
// own go.sum is copied into the downstream module, which covers every
// module the build needs.
func offlineGoEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

const downstreamMain = `// Command demo loads the generated kernels for GPU 0 and launches each
// once on buffers the caller would own; it is only compiled in CI.
package main

import (
	"fmt"
	"os"
	"time"

	"example.com/downstream/kernels"
	"example.com/downstream/mlp"
	"github.com/swigen/swigen/runtime/cu"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// closer is what every generated launcher embeds (*launch.Kernel).
type closer interface{ Close() error }

func run() error {
	if err := cu.Init(); err != nil {
		return err
	}
	dev, err := cu.GetDevice(0)
	if err != nil {
		return err
	}
	ctx, err := cu.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Close()
	const M, K, I = 256, 128, 256
	var b [5]cu.DevicePtr // each large enough for any operand: [M,2I] = [2I,K] * 2
	for i := range b {
		if b[i], err = ctx.MemAlloc(2 * M * 2 * I); err != nil {
			return err
		}
		defer ctx.MemFree(b[i])
	}
	var loaded []closer
	defer func() {
		for _, k := range loaded {
			_ = k.Close()
		}
	}()
	load := func(k closer, err error) error {
		if err == nil {
			loaded = append(loaded, k)
		}
		return err
	}

	// The CLI package: the seed kernel, picked for the device's arch.
	bwd, err := kernels.LoadBwdDswiglu(ctx) // the sm_90a kernel on an H100/H200
	if err := load(bwd, err); err != nil {
		return err
	}
	if err := bwd.Launch(kernels.BwdArgs{M: M, K: K, I: I, Dy: b[0], WDown: b[1], De: b[2], GradDe: b[3]}); err != nil {
		return err
	}

	// The mixed package: one launcher per kind, each with its own arguments.
	gemm, err := mlp.LoadGemm(ctx)
	if err := load(gemm, err); err != nil {
		return err
	}
	if err := gemm.Launch(mlp.GemmArgs{M: M, N: I, K: K, A: b[0], B: b[1], C: b[2]}); err != nil {
		return err
	}
	up, err := mlp.LoadFwdGateUp(ctx)
	if err := load(up, err); err != nil {
		return err
	}
	if err := up.Launch(mlp.FwdGateUpArgs{M: M, K: K, I: I, X: b[0], W: b[1], Out: b[2]}); err != nil {
		return err
	}
	down, err := mlp.LoadFwdDown(ctx)
	if err := load(down, err); err != nil {
		return err
	}
	if err := down.Launch(mlp.FwdDownArgs{M: M, K: K, I: I, Out: b[2], WDown: b[1], Y: b[3]}); err != nil {
		return err
	}
	back, err := mlp.LoadBwdDswiglu(ctx)
	if err := load(back, err); err != nil {
		return err
	}
	if err := back.Launch(mlp.BwdArgs{M: M, K: K, I: I, Dy: b[3], WDown: b[1], De: b[4], GradDe: b[0]}); err != nil {
		return err
	}
	return ctx.Synchronize(10*time.Second, "demo")
}
`

// downstreamGenMLP is the downstream's generator of package mlp: one
// sm_90a kernel of each kind in one package. swigen emit takes one --kernel
// per run (one run writes one package), so a package mixing kinds is
// emitted through the library: gen.Emit with gen.GoBindingsHook.
const downstreamGenMLP = `// Command genmlp writes package mlp: the heuristic sm_90a kernel of every
// kind, compiled when a CUDA compiler is found, with Go bindings.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genmlp:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfgs []tiling.Config
	for _, k := range tiling.Kernels() {
		c, err := tiling.Heuristic(k, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
		if err != nil {
			return err
		}
		cfgs = append(cfgs, c)
	}
	o := gen.EmitOptions{Dir: "mlp", ExtraFiles: gen.GoBindingsHook("mlp")}
	tc, err := gen.FindToolchain(gen.FindOptions{})
	switch {
	case errors.Is(err, gen.ErrNoCompiler):
		fmt.Fprintln(os.Stderr, "genmlp: no CUDA compiler, writing sources and bindings only:", err)
	case err != nil:
		return err
	default:
		o.Toolchain = tc
	}
	res, err := gen.Emit(context.Background(), cfgs, o)
	if err != nil {
		return err
	}
	fmt.Printf("genmlp: %d kernels, %d files in %s\n", len(res.Kernels), len(res.Files), res.Dir)
	return nil
}
`

// TestGoGenerateDownstream is the end-to-end check of --go-package: a
// fresh module outside this repo (require + replace) runs swigen through
// go generate, then go vet and a CGO_ENABLED=0 build of the generated
// packages and of a small main that calls every launcher. Package kernels
// is compiled with the CLI (cubin embedded; needs the CUDA compiler),
// kernelsrc is --no-compile (no cubin: the bindings must still build), and
// mlp holds one sm_90a kernel of each kind, emitted by a downstream
// generator through gen.Emit and gen.GoBindingsHook.
func TestGoGenerateDownstream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go generate and go build; skipped in -short mode")
	}
	goCmd := goTool(t)
	compiled := true
	if _, err := gen.FindToolchain(gen.FindOptions{}); err != nil {
		if requireCompiler() {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Logf("no CUDA compiler (%v): the compiled package gets no cubin; checking that it still builds", err)
		compiled = false
	}
	root := repoRoot(t)
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/downstream\n\ngo 1.26.0\n\nrequire github.com/swigen/swigen v0.0.0\n\nreplace github.com/swigen/swigen => " + root + "\n",
		"gen.go": "// Package downstream uses swigen kernels.\npackage downstream\n\n" +
			"//go:generate go run github.com/swigen/swigen/cmd/swigen emit --go-package kernels -o kernels --arch sm_90a\n" +
			"//go:generate go run github.com/swigen/swigen/cmd/swigen emit --no-compile --go-package kernelsrc -o kernelsrc\n" +
			"//go:generate go run ./internal/genmlp\n",
		"cmd/demo/main.go":        downstreamMain,
		"internal/genmlp/main.go": downstreamGenMLP,
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := offlineGoEnv()
	out := runIn(t, dir, env, goCmd, "generate", "./...")
	t.Logf("go generate:\n%s", out)
	h90 := seedConfigs(t)[0]
	cubin := filepath.Join(dir, "kernels", h90.Name()+".sm_90a.cubin")
	if _, err := os.Stat(cubin); compiled && err != nil {
		t.Errorf("compiled package lacks its cubin: %v", err)
	}
	for _, c := range kindConfigs(t) {
		if _, err := os.Stat(filepath.Join(dir, "mlp", c.Name()+".sm_90a.cubin")); compiled && err != nil {
			t.Errorf("package mlp lacks the %s cubin: %v", c.Kernel, err)
		}
	}
	for _, p := range []string{"kernels", "kernelsrc", "mlp"} {
		if _, err := os.Stat(filepath.Join(dir, p, gen.GoBindingsFile)); err != nil {
			t.Errorf("no bindings in %s: %v", p, err)
		}
	}
	runIn(t, dir, env, goCmd, "vet", "./...")
	runIn(t, dir, append(env, "CGO_ENABLED=0"), goCmd, "build", "./...")
	if out := runIn(t, dir, env, "gofmt", "-l", "."); strings.TrimSpace(out) != "" {
		t.Errorf("gofmt -l lists generated files:\n%s", out)
	}
}

// examplesDirectives returns the arguments of the swigen lines of
// examples/gen.go's //go:generate directives (after "go run ../cmd/swigen"),
// one per generated package.
func examplesDirectives(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "examples", "gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const prefix = "//go:generate go run ../cmd/swigen "
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			out = append(out, strings.Fields(rest))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("examples/gen.go has no %q line", prefix)
	}
	return out
}

// TestExamplesUpToDate runs each of examples/gen.go's generate commands as
// swigen diff: the committed packages (sources, manifests, cubins by
// sha256, Go bindings) must be what the generator makes now. The cubins
// are bit-reproducible with the pinned compiler, so this needs it.
func TestExamplesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with nvcc; skipped in -short mode")
	}
	toolchain(t)
	goCmd := goTool(t)
	for _, args := range examplesDirectives(t) {
		if len(args) == 0 || args[0] != "emit" {
			t.Fatalf("examples/gen.go runs swigen %v, want swigen emit ...", args)
		}
		args = append([]string{"run", "../cmd/swigen", "diff"}, args[1:]...)
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = filepath.Join(repoRoot(t), "examples")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("go %s: %v; examples is stale, regenerate with go generate ./examples:\n%s", strings.Join(args, " "), err, out.String())
		}
	}
}
