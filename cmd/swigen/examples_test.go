package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen/emit"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

// errValidated stops runTune where its checks end and the work begins.
var errValidated = errors.New("validated")

// validatingRoot is the real command tree with every command that would
// compile, touch a GPU or write files replaced by the same command built
// with a runF that only validates (the production checks: emit's prepare,
// verify's and bench's validate, runTune up to the compiler). list and
// version run for real: they only print. It fails the test if the tree
// has a runnable command this function does not know, so a new command's
// examples cannot run for real here.
func validatingRoot(t *testing.T) *cobra.Command {
	t.Helper()
	e := &env{stdout: io.Discard, stderr: io.Discard}
	anyArch := func(f func(a tiling.Arch) error) error {
		var errs []error
		for _, a := range tiling.Arches() {
			err := f(a)
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	stop := tuneDeps{
		probe: func([]int) (tuneGPU, error) {
			return tuneGPU{Name: "NVIDIA H200", Driver: 13000, Arch: tiling.ArchSM90a, CC: "sm_90"}, nil
		},
		toolchain: func(string) (*toolchain.Toolchain, error) { return nil, errValidated },
	}
	seams := map[string]*cobra.Command{
		"emit": newEmitCmd(e, func(_ context.Context, o *emitOptions) error { return emit.Check(o.lib()) }),
		"diff": newDiffCmd(e, func(_ context.Context, o *emitOptions) error { return emit.Check(o.lib()) }),
		"verify": newVerifyCmd(e, func(_ context.Context, o *verifyOptions) error {
			if _, err := o.validate(); err != nil {
				return err
			}
			return anyArch(func(a tiling.Arch) error { _, err := o.Select.ConfigsOn(a); return err })
		}),
		"bench": newBenchCmd(e, func(_ context.Context, o *benchOptions) error {
			shapes, err := o.validate()
			if err != nil || o.Model != "" {
				return err
			}
			return anyArch(func(a tiling.Arch) error { _, err := benchJobs(o, a, shapes); return err })
		}),
		"tune": newTuneCmd(e, func(ctx context.Context, o *tuneOptions) error {
			if err := runTune(ctx, e, o, stop); !errors.Is(err, errValidated) {
				return err
			}
			return nil
		}),
		"doctor":      newDoctorCmd(e, func(context.Context, *doctorOptions) error { return nil }),
		"tune-worker": newTuneWorkerCmd(e, func(context.Context, *workerOptions) error { return nil }),
		"toolchain":   newToolchainCmd(e),
		"wheel": newWheelCmd(e, func(_ context.Context, o *wheelOptions) error {
			_, err := o.options()
			return err
		}),
	}
	subSeams := map[string]map[string]*cobra.Command{
		"bench": {
			"mlp":  newBenchMLPCmd(e, func(context.Context, *benchMLPOptions) error { return nil }), // its parse ran in RunE
			"gemm": newBenchGemmCmd(e, func(_ context.Context, o *benchGemmOptions) error { _, _, _, err := o.validate(); return err }),
		},
		"tune": {
			"merge": newTuneMergeCmd(e, func([]string, string) error { return nil }),
			"table": newTuneTableCmd(e, func([]string, string) error { return nil }),
		},
		"toolchain": {
			"install": newToolchainInstallCmd(e, func(_ context.Context, o *toolchainInstallOptions) error { _, err := o.validate(); return err }),
		},
	}
	root := newRootCmd(e)
	replace := func(parent, c *cobra.Command) {
		for _, old := range parent.Commands() {
			if old.Name() == c.Name() {
				parent.RemoveCommand(old)
			}
		}
		parent.AddCommand(c)
	}
	for name, c := range seams {
		for _, sc := range subSeams[name] {
			replace(c, sc)
		}
		replace(root, c)
	}
	realOK := map[string]bool{"swigen list": true, "swigen version": true, "swigen help": true}
	var walk func(c *cobra.Command, seam bool)
	walk = func(c *cobra.Command, seam bool) {
		known := seam || realOK[c.CommandPath()] || strings.HasPrefix(c.CommandPath(), "swigen completion")
		if c.Runnable() && c != root && !known {
			t.Fatalf("%s has no validating seam in validatingRoot; add one", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			isSeam := false
			if c == root {
				isSeam = seams[sub.Name()] == sub
			} else if seam {
				isSeam = subSeams[c.Name()][sub.Name()] == sub
			}
			walk(sub, isSeam)
		}
	}
	walk(root, false)
	return root
}

// exampleArgs turns one Example line ("  swigen emit --x  # comment")
// into the arguments after "swigen".
func exampleArgs(t *testing.T, line string) []string {
	t.Helper()
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if strings.ContainsAny(line, `"'$|;&<>`+"`") {
		t.Fatalf("example %q needs a shell; keep examples to plain words", line)
	}
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "swigen" {
		t.Fatalf("example %q does not start with swigen", line)
	}
	return f[1:]
}

// TestHelpExamples runs every example line of every command's help
// through flag parsing and validation, without compiling, writing or
// touching a GPU, and checks that each is accepted.
func TestHelpExamples(t *testing.T) {
	t.Parallel()
	type example struct{ cmd, line string }
	var examples []example
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range strings.Split(c.Example, "\n") {
			if strings.TrimSpace(l) != "" {
				examples = append(examples, example{c.CommandPath(), l})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&env{stdout: io.Discard, stderr: io.Discard}))
	if len(examples) < 20 {
		t.Fatalf("found %d examples; the walk missed commands", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.cmd+":"+strings.TrimSpace(ex.line), func(t *testing.T) {
			t.Parallel()
			args := exampleArgs(t, ex.line)
			root := validatingRoot(t)
			root.SetArgs(args)
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			if err := root.ExecuteContext(context.Background()); err != nil {
				t.Errorf("%s: example %q is rejected (exit %d): %v", ex.cmd, strings.TrimSpace(ex.line), exitCode(err), err)
			}
		})
	}
}

// TestValidatingRootRejects checks the seams do validate: a bad value in
// each command's flags is rejected, so TestHelpExamples means something.
func TestValidatingRootRejects(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"emit", "--arch", "sm_90a", "--tile", "128x256x64", "--stages", "4", "--schedule", "pingpong"},
		{"emit", "--kernel", "gemm", "--schedule", "overlap"},
		{"diff", "--name", "nope"},
		{"verify", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s9_c1x1_pingpong"},
		{"verify", "--shape", "1,2"},
		{"bench", "bwd", "--name", "gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"},
		{"bench", "gemm", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"},
		{"bench", "mlp", "--reps", "3"},
		{"tune", "--kernel", "fwd_down"},
		{"tune", "--arch", "sm_100a"},
		{"tune", "merge", "a.json"},
		{"list", "--dtype", "fp8"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			root := validatingRoot(t)
			root.SetArgs(args)
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			if err := root.ExecuteContext(context.Background()); exitCode(err) != exitUsage {
				t.Errorf("err %v (exit %d), want exit %d", err, exitCode(err), exitUsage)
			}
		})
	}
}
