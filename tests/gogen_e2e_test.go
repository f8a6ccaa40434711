package tests

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/gobind"
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

// groupedConfigs are one config of each grouped kind, by name: their
// launchers take the grouped argument types (MoEFwdGateUpArgs, MoEBwdArgs,
// MoEGemmArgs).
func groupedConfigs(t *testing.T) []tiling.Config {
	t.Helper()
	var out []tiling.Config
	for _, name := range []string{
		"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
		"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
		"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	} {
		c, err := tiling.ParseName(name)
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
// dispatcher per kind), the sm_90a catalog (several kernels per arch
// and kind: no dispatcher) and one kernel of each grouped kind. Regenerate with
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
		{"grouped_sm90a", "moe", groupedConfigs(t), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			idx, mans := bindIndex(t, tt.cfgs, tt.compiled)
			f, err := gobind.Generate(tt.pkg, idx, mans)
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
// sm_90a kernel of each kind in one package, emitted through the library
// (gen.Emit with gobind.Hook) rather than the CLI, to check that
// path.
const downstreamGenMLP = `// Command genmlp writes package mlp: the heuristic sm_90a kernel of every
// kind, compiled when a CUDA compiler is found, with Go bindings.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/gobind"
	"github.com/swigen/swigen/gen/toolchain"
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
	o := gen.EmitOptions{Dir: "mlp", ExtraFiles: gobind.Hook("mlp")}
	tc, err := toolchain.Find(toolchain.FindOptions{})
	switch {
	case errors.Is(err, toolchain.ErrNoCompiler):
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

// readmeGoGenerateMarker is the line of README.md before the downstream go
// generate recipe: a fenced shell block that TestGoGenerateDownstream runs
// as written, so the README and the test cannot drift apart.
const readmeGoGenerateMarker = "<!-- e2e:go-generate -->"

// readmeCheckoutArg is the block's argument naming the swigen checkout; the
// test puts this checkout's root in place of PATH.
const readmeCheckoutArg = "github.com/swigen/swigen=PATH"

// readmeGoGenerateBlock returns the body of the fenced block that follows
// readmeGoGenerateMarker in README.md.
func readmeGoGenerateBlock(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), readmeGoGenerateMarker+"\n")
	if !ok {
		t.Fatalf("README.md has no %q line before its go generate recipe", readmeGoGenerateMarker)
	}
	fence, rest, _ := strings.Cut(after, "\n")
	if fence != "```sh" && fence != "```bash" {
		t.Fatalf("README.md: the line after %q is %q, want a ```sh fence", readmeGoGenerateMarker, fence)
	}
	body, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatalf("README.md: the go generate block after %q has no closing fence", readmeGoGenerateMarker)
	}
	return body + "\n"
}

// shellQuote quotes s as one word for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// downstreamGoEnv is the environment of the downstream module's go
// commands: no workspace, the local toolchain, and GOFLAGS without -mod or
// -modfile (from the environment or go env -w), so that a go.mod or go.sum
// the recipe leaves incomplete fails the build instead of being patched up
// by -mod=mod. Offline, GOPROXY=off and GOSUMDB=off: every module must come
// from the module cache; otherwise the proxy settings of the environment
// apply.
func downstreamGoEnv(t *testing.T, goCmd string, offline bool) []string {
	t.Helper()
	out, err := exec.Command(goCmd, "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	var flags []string
	for _, f := range strings.Fields(string(out)) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "-modfile=") {
			flags = append(flags, f)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOWORK", "GOTOOLCHAIN":
			continue
		case "GOPROXY", "GOSUMDB":
			if offline {
				continue
			}
		}
		env = append(env, kv)
	}
	env = append(env, "GOFLAGS="+strings.Join(flags, " "), "GOWORK=off", "GOTOOLCHAIN=local")
	if offline {
		env = append(env, "GOPROXY=off", "GOSUMDB=off")
	}
	return env
}

// networkTrouble reports whether go command output says a module could not
// be fetched because no module proxy was reachable.
func networkTrouble(out string) bool {
	for _, s := range []string{"GOPROXY=off", "dial tcp", "no such host", "i/o timeout", "connection refused",
		"network is unreachable", "TLS handshake timeout", "server misbehaving"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// swigenDirective is one //go:generate line that runs swigen as a Go tool.
type swigenDirective struct {
	dir  string   // the directory of the file holding it
	args []string // after "go tool swigen"
}

// swigenDirectives lists the //go:generate go tool swigen lines of the Go
// files under root.
func swigenDirectives(t *testing.T, root string) []swigenDirective {
	t.Helper()
	const prefix = "//go:generate go tool swigen "
	var out []swigenDirective
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				out = append(out, swigenDirective{dir: filepath.Dir(p), args: strings.Fields(rest)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// treeSums maps every file under root (slash-separated relative path) to the
// sha256 of its bytes.
func treeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		sums[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// TestGoGenerateDownstream is the end-to-end check of the README's go
// generate recipe. It takes the recipe's shell block from README.md as
// written (PATH replaced by this checkout), runs it in a fresh module
// (go mod init, then the block: go mod edit, go mod tidy, a package whose
// //go:generate line runs go tool swigen emit --go-package, go generate),
// and then checks that the module is in a working state without any help:
// GOFLAGS carries no -mod=mod, and swigen's go.sum is not copied in.
//
// The module then gets more of what a downstream uses: a sources-only
// package (--no-compile: no cubin embedded, the bindings must still build),
// package mlp with one sm_90a kernel of each kind emitted by a downstream
// generator through gen.Emit and gobind.Hook, and a small main that
// calls a launcher of every kind. After go generate, go vet and a
// CGO_ENABLED=0 go build of everything, a second go generate must leave
// every file byte for byte as it was, and go tool swigen diff must exit 0
// both with each directive's arguments and, as the README has it, with no
// flags in the directory each wrote, without writing a build cache. A
// generated file edited by hand makes diff exit 3, and switching the
// README directive's --arch makes the next go generate remove the old
// arch's files, and nothing else.
//
// Modules come from the module cache when it holds them all (GOPROXY=off);
// otherwise the block runs again, in a new module, with the module proxy.
// With no proxy reachable the test skips, and so it does without a CUDA
// compiler (findToolchain), unless SWIGEN_REQUIRE_COMPILER=1.
func TestGoGenerateDownstream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go generate and go build; skipped in -short mode")
	}
	goCmd := goTool(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash to run the README's shell block: %v", err)
	}
	// The README's block runs emit --go-package, which fails without a
	// compiler (exit 1, as it should): skip like every compiler test.
	findToolchain(t)
	root := repoRoot(t)
	block := readmeGoGenerateBlock(t)
	if n := strings.Count(block, readmeCheckoutArg); n != 1 {
		t.Fatalf("README.md's go generate block names the checkout as %q %d times, want once:\n%s", readmeCheckoutArg, n, block)
	}
	block = strings.Replace(block, readmeCheckoutArg, shellQuote("github.com/swigen/swigen="+root), 1)
	script := filepath.Join(t.TempDir(), "readme-go-generate.sh")
	if err := os.WriteFile(script, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}

	var dir string
	var env []string
	for _, offline := range []bool{true, false} {
		dir = filepath.Join(t.TempDir(), "downstream")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		env = downstreamGoEnv(t, goCmd, offline)
		runIn(t, dir, env, goCmd, "mod", "init", "example.com/downstream")
		cmd := exec.Command(bash, "-e", "-u", "-o", "pipefail", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Logf("README go generate block (module cache only: %v):\n%s", offline, out)
			break
		}
		switch {
		case offline && strings.Contains(string(out), "GOPROXY=off"):
			t.Logf("the module cache lacks modules the block needs; running it again with the module proxy:\n%s", out)
			continue
		case !offline && networkTrouble(string(out)):
			t.Skipf("README.md's go generate block needs modules that are not in the module cache, and no module proxy is reachable: %v\n%s", err, out)
		}
		t.Fatalf("README.md's go generate block failed in a fresh module (%s): %v\n--- block\n%s--- output\n%s", dir, err, block, out)
	}

	// The block leaves go.mod tidy: swigen a direct requirement (the
	// generated package imports it), so the next go mod tidy edits nothing.
	modBefore, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`github.com/swigen/swigen v\S+ // indirect`).Match(modBefore) {
		t.Errorf("after the README's block swigen is an indirect requirement:\n%s", modBefore)
	}
	runIn(t, dir, env, goCmd, "mod", "tidy")
	if modAfter, _ := os.ReadFile(filepath.Join(dir, "go.mod")); !bytes.Equal(modBefore, modAfter) {
		t.Errorf("go mod tidy after the README's block changed go.mod:\n--- before\n%s--- after\n%s", modBefore, modAfter)
	}

	directives := swigenDirectives(t, dir)
	if len(directives) == 0 {
		t.Fatal("the README's block left no //go:generate go tool swigen line in the module")
	}
	afterBlock := treeSums(t, dir)
	if _, ok := afterBlock[filepath.ToSlash(filepath.Join("kernels", gobind.File))]; !ok {
		t.Errorf("the README's block wrote no kernels/%s; files: %v", gobind.File, slices.Sorted(maps.Keys(afterBlock)))
	}

	extra := map[string]string{
		"downstream.go": "// Package downstream uses swigen kernels.\npackage downstream\n\n" +
			"//go:generate go tool swigen emit --no-compile --go-package kernelsrc -o kernelsrc\n" +
			"//go:generate go run ./internal/genmlp\n",
		"cmd/demo/main.go":        downstreamMain,
		"internal/genmlp/main.go": downstreamGenMLP,
	}
	for name, body := range extra {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := runIn(t, dir, env, goCmd, "generate", "./...")
	t.Logf("go generate:\n%s", out)
	runIn(t, dir, env, goCmd, "vet", "./...")
	runIn(t, dir, append(env, "CGO_ENABLED=0"), goCmd, "build", "./...")
	first := treeSums(t, dir)
	for name, sum := range afterBlock {
		if first[name] != sum {
			t.Errorf("%s changed when go generate ran again after the README's block", name)
		}
	}
	h90 := seedConfigs(t)[0]
	if _, ok := first["kernels/"+h90.Name()+".sm_90a.cubin"]; !ok {
		t.Errorf("package kernels lacks the cubin of %s", h90.Name())
	}
	for _, c := range kindConfigs(t) {
		if _, ok := first["mlp/"+c.Name()+".sm_90a.cubin"]; !ok {
			t.Errorf("package mlp lacks the %s cubin", c.Kernel)
		}
	}
	for _, p := range []string{"kernels", "kernelsrc", "mlp"} {
		if _, ok := first[p+"/"+gobind.File]; !ok {
			t.Errorf("no bindings in %s", p)
		}
	}

	out = runIn(t, dir, env, goCmd, "generate", "./...")
	second := treeSums(t, dir)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("a second go generate changed files (-first +second sha256):\n%s\ngo generate:\n%s", diff, out)
	}
	// diff is read-only: pointed at a build cache of its own, it must
	// leave it as it was (here: not there at all).
	diffCache := filepath.Join(t.TempDir(), "diff-cache")
	diffEnv := append(slices.Clone(env), "SWIGEN_CACHE_DIR="+diffCache)
	diff := func(dir string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(goCmd, append([]string{"tool", "swigen", "diff"}, args...)...)
		cmd.Dir, cmd.Env = dir, diffEnv
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("go tool swigen diff %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
		return 0, ""
	}
	for _, d := range swigenDirectives(t, dir) {
		if len(d.args) == 0 || d.args[0] != "emit" {
			continue
		}
		// With the directive's flags, where go generate runs it...
		if code, out := diff(d.dir, d.args[1:]...); code != 0 {
			t.Errorf("go tool swigen diff %s (in %s): exit %d, want 0 (up to date)\n%s", strings.Join(d.args[1:], " "), d.dir, code, out)
		}
		// ...and without flags in the directory it wrote, as the README
		// says: diff runs the emit recorded in manifest.json there.
		outDir := filepath.Join(d.dir, emitOutDir(d.args[1:]))
		if code, out := diff(outDir); code != 0 {
			t.Errorf("go tool swigen diff (in %s, no flags): exit %d, want 0 (up to date)\n%s", outDir, code, out)
		}
	}
	// Package mlp comes from gen.Emit, which records no command line:
	// without flags there is nothing to run, a usage error.
	if code, out := diff(filepath.Join(dir, "mlp")); code != 2 || !strings.Contains(out, "records no swigen emit command") {
		t.Errorf("go tool swigen diff in mlp (no recorded command): exit %d, want 2\n%s", code, out)
	}
	// A generated file edited by hand is stale (exit 3), named in a short
	// summary.
	kernelsDir := filepath.Join(dir, "kernels")
	src := filepath.Join(kernelsDir, h90.Name()+".cu")
	good, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(good, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := diff(kernelsDir); code != 3 || !strings.Contains(out, "changed   "+h90.Name()+".cu\n") || strings.Count(out, "\n") > 40 {
		t.Errorf("go tool swigen diff in kernels after an edit: exit %d, want 3 with a short summary naming %s.cu\n%s", code, h90.Name(), out)
	}
	if err := os.WriteFile(src, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(diffCache); !os.IsNotExist(err) {
		t.Errorf("go tool swigen diff wrote its build cache %s (stat: %v): %v", diffCache, err, slices.Sorted(maps.Keys(treeSums(t, diffCache))))
	}
	if out := runIn(t, dir, env, "gofmt", "-l", "."); strings.TrimSpace(out) != "" {
		t.Errorf("gofmt -l lists generated files:\n%s", out)
	}

	// Switching the go:generate line's --arch: the next go generate
	// removes the old arch's files (and no file it did not write), and
	// diff without flags finds the package current.
	genGo := filepath.Join(kernelsDir, "gen.go")
	b, err := os.ReadFile(genGo)
	if err != nil {
		t.Fatal(err)
	}
	switched := strings.Replace(string(b), " --arch sm_90a", " --arch sm_100a", 1)
	if switched == string(b) {
		t.Fatalf("%s has no --arch sm_90a to switch:\n%s", genGo, b)
	}
	if err := os.WriteFile(genGo, []byte(switched), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeSums(t, kernelsDir)
	out = runIn(t, kernelsDir, env, goCmd, "generate", ".")
	after := treeSums(t, kernelsDir)
	h100 := seedConfigs(t)[1]
	for name := range before {
		if strings.HasPrefix(name, h90.Name()+".") {
			if _, ok := after[name]; ok {
				t.Errorf("kernels/%s is still there after the switch to sm_100a\ngo generate:\n%s", name, out)
			}
		}
	}
	if after["gen.go"] != before["gen.go"] {
		t.Error("go generate changed kernels/gen.go, a file emit did not write")
	}
	if _, ok := after[h100.Name()+".sm_100a.cubin"]; !ok {
		t.Errorf("no sm_100a cubin after the switch; files: %v", slices.Sorted(maps.Keys(after)))
	}
	runIn(t, dir, env, goCmd, "vet", "./kernels")
	if code, out := diff(kernelsDir); code != 0 {
		t.Errorf("go tool swigen diff in kernels after the switch: exit %d, want 0\n%s", code, out)
	}
}

// emitOutDir returns the -o of swigen emit arguments (emit's default,
// out, when there is none).
func emitOutDir(args []string) string {
	out := "out"
	for i, a := range args {
		switch {
		case (a == "-o" || a == "--out") && i+1 < len(args):
			out = args[i+1]
		case strings.HasPrefix(a, "-o="), strings.HasPrefix(a, "--out="):
			_, out, _ = strings.Cut(a, "=")
		}
	}
	return out
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
// swigen diff, and swigen diff without flags in each package: the
// committed packages (sources, manifests, cubins by sha256, Go bindings)
// must be what the generator makes now. The cubins are bit-reproducible
// with the pinned compiler, so this needs it.
func TestExamplesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with nvcc; skipped in -short mode")
	}
	findToolchain(t)
	goCmd := goTool(t)
	for _, args := range examplesDirectives(t) {
		if len(args) == 0 || args[0] != "emit" {
			t.Fatalf("examples/gen.go runs swigen %v, want swigen emit ...", args)
		}
		examples := filepath.Join(repoRoot(t), "examples")
		// The directive's flags in examples/, and no flags in the package
		// it wrote (the emit its manifest.json records).
		for _, run := range []struct {
			dir  string
			args []string
		}{
			{examples, append([]string{"run", "../cmd/swigen", "diff"}, args[1:]...)},
			{filepath.Join(examples, emitOutDir(args[1:])), []string{"run", filepath.Join(repoRoot(t), "cmd", "swigen"), "diff"}},
		} {
			cmd := exec.Command(goCmd, run.args...)
			cmd.Dir = run.dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Errorf("go %s (in %s): %v; examples is stale, regenerate with go generate ./examples:\n%s", strings.Join(run.args, " "), run.dir, err, out.String())
			}
		}
	}
}
