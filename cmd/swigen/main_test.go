package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// runCLI runs swigen with args and returns the exit code and both outputs.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Examples:", "  swigen emit", "Environment (every variable swigen reads):", "completion", "SWIGEN_CACHE_DIR", "SWIGEN_CUDA_VENV", "CUDA_HOME", "Exit codes:"}},
		{[]string{"emit", "--help"}, []string{"Examples:", "  swigen emit\n", "--no-compile", "--schedule", "--allow-spills"}},
		{[]string{"list", "--help"}, []string{"Examples:", "  swigen list\n", "--space", "--json"}},
		{[]string{"doctor", "--help"}, []string{"Examples:", "  swigen doctor\n", "compile-verified only"}},
		{[]string{"version", "--help"}, []string{"Examples:", "  swigen version\n"}},
		{[]string{"help", "emit"}, []string{"Examples:", "  swigen emit\n"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("help lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestCommandDocs checks every command has Short, Long and a two-space
// indented Example of two or three lines that start with "swigen".
func TestCommandDocs(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	cmds := append(root.Commands(), root)
	for _, c := range cmds {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Short == "" || c.Long == "" {
			t.Errorf("%s: Short or Long empty", c.CommandPath())
		}
		lines := strings.Split(c.Example, "\n")
		if len(lines) < 2 || len(lines) > 3 {
			t.Errorf("%s: Example has %d lines, want 2-3", c.CommandPath(), len(lines))
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "  swigen") {
				t.Errorf("%s: Example line %q is not \"  swigen ...\"", c.CommandPath(), l)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		args      []string
		wantErr   string
		wantUsage bool
	}{
		{"unknown flag", []string{"emit", "--bogus"}, "unknown flag: --bogus", true},
		{"bad flag value", []string{"emit", "--stages", "x"}, `invalid argument "x"`, true},
		{"extra argument", []string{"emit", "extra"}, `unknown command "extra"`, true},
		{"unknown command", []string{"emti"}, `unknown command "emti"`, false},
		{"bad tile", []string{"emit", "--tile", "12", "--no-compile"}, `parse tile "12"`, false},
		{"bad arch", []string{"emit", "--arch", "sm_80", "--no-compile"}, `parse arch "sm_80"`, false},
		{"schedule on no arch", []string{"emit", "--arch", "sm_100a", "--schedule", "pingpong", "--no-compile"}, "--schedule pingpong is not legal on sm_100a", false},
		{"catalog with tile", []string{"emit", "--catalog", "--tile", "128x128x64"}, "cannot be combined with --tile", false},
		{"name with arch", []string{"emit", "--name", "x", "--arch", "sm_90a"}, "drop --arch", false},
		{"list bad filter", []string{"list", "--dtype", "fp8"}, `parse dtype "fp8"`, false},
		{"version args", []string{"version", "x"}, `unknown command "x"`, true},
		{"empty command", []string{""}, `unknown command ""`, false},
		{"unknown help topic", []string{"help", "foo"}, `unknown help topic "foo"`, true},
		{"unknown shell", []string{"completion", "foo"}, `unknown command "foo" for "swigen completion"`, false},
		{"tune bad arch", []string{"tune", "--arch", "sm_80"}, `tune: --arch`, false},
		{"tune jobs", []string{"tune", "--jobs", "-1"}, "--jobs -1: want at least 1", false},
		{"tune devices", []string{"tune", "--devices", "-1"}, "--devices -1: a GPU ordinal is 0 or more", false},
		{"tune reps", []string{"tune", "--reps", "5"}, "--reps 5: want at least 20", false},
		{"tune report dir", []string{"tune", "--report", "/nonexistent-swigen-dir/r.svg"}, "--report: /nonexistent-swigen-dir/r.svg cannot be written", false},
		{"bench reps 0", []string{"bench", "bwd", "--reps", "0"}, "--reps 0: want at least 20", false},
		{"bench reps -1", []string{"bench", "gateup", "--reps", "-1"}, "--reps -1: want at least 20", false},
		{"bench warmup", []string{"bench", "bwd", "--warmup", "-1s"}, "--warmup -1s: must not be negative", false},
		{"bench gemm reps", []string{"bench", "gemm", "--reps", "3"}, "bench gemm: --reps 3", false},
		{"doctor nvcc", []string{"doctor", "--nvcc", "/nonexistent-swigen-nvcc"}, `--nvcc "/nonexistent-swigen-nvcc"`, false},
		{"emit no kernel", []string{"emit", "--kernel", "", "--no-compile"}, "--kernel: no kernel given (want one or more of", false},
		{"emit l2k on sm_100a", []string{"emit", "--l2k", "--arch", "sm_100a", "--no-compile"}, "--l2k applies to sm_90a configs only", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, errOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, errOut)
			}
			if got := strings.Contains(errOut, "Usage:"); got != tt.wantUsage {
				t.Errorf("usage printed = %v, want %v; stderr:\n%s", got, tt.wantUsage, errOut)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "version")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"swigen " + version + "\n", "go:      " + runtime.Version(), "module:  github.com/swigen/swigen"} {
		if !strings.Contains(out, w) {
			t.Errorf("version output lacks %q:\n%s", w, out)
		}
	}
	code, out, _ = runCLI(t, "--version")
	if code != exitOK || out != "swigen "+version+"\n" {
		t.Errorf("--version: exit %d, output %q", code, out)
	}
}

// TestMainNoArgs checks that bare swigen prints help and succeeds.
func TestMainNoArgs(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t)
	if code != exitOK || !strings.Contains(out, "Available Commands") && !strings.Contains(out, "Generating kernels:") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}
