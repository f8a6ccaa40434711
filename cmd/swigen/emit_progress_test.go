package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain/toolchaintest"
)

// emitWithFakeCompiler runs swigen emit args with the fake compiler, its
// stderr a terminal or not, and returns the output directory and stderr.
func emitWithFakeCompiler(t *testing.T, tty bool, args ...string) (dir, stderr string) {
	t.Helper()
	dir = t.TempDir()
	var out, errb bytes.Buffer
	root := newRootCmd(&env{stdout: &out, stderr: &errb, stderrTTY: tty})
	root.SetArgs(append([]string{"emit", "--nvcc", toolchaintest.Dir(t), "-o", dir}, args...))
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("emit %v: %v\n%s", args, err, errb.String())
	}
	return dir, errb.String()
}

var progressLineRE = regexp.MustCompile(`(?m)^compiled .*$`)

// withUnfusedPath are emit flags whose kernel ships its unfused path (the
// measured plan has fwd_gateup training points where it runs unfused, see
// TestEmitDispatch): a gemm and the elementwise module beside it.
var withUnfusedPath = []string{"--kernel", "fwd_gateup", "--store-out", "--shape", "8192,8192,14336"}

// TestEmitProgressTTY: on a terminal, emit prints one line per compile as
// it finishes (each kernel, then the elementwise module); piped, none.
func TestEmitProgressTTY(t *testing.T) {
	t.Setenv("SWIGEN_CACHE_DIR", t.TempDir())
	for _, tty := range []bool{true, false} {
		_, stderr := emitWithFakeCompiler(t, tty, append([]string{"--arch", "sm_90a"}, withUnfusedPath...)...)
		got := progressLineRE.FindAllString(stderr, -1)
		if !tty {
			if len(got) != 0 {
				t.Errorf("stderr not a terminal: progress lines %q", got)
			}
			continue
		}
		want := []*regexp.Regexp{
			regexp.MustCompile(`^compiled [12]/2 (fwd_gateup|gemm)_sm90a_\S+ \(\S+\)$`),
			regexp.MustCompile(`^compiled [12]/2 (fwd_gateup|gemm)_sm90a_\S+ \(\S+\)$`),
			regexp.MustCompile(`^compiled swigen_elementwise for sm_90a \(\S+\)$`),
		}
		if len(got) != len(want) || got[0] == got[1] {
			t.Fatalf("terminal: progress lines %q, want 2 kernels then the elementwise module\n%s", got, stderr)
		}
		for i, re := range want {
			if !re.MatchString(got[i]) {
				t.Errorf("terminal: line %q does not match %s", got[i], re)
			}
		}
	}
}

// TestEmittedHeader: every source file emit writes (.cu, the Go and the
// Python bindings) starts with the generated-code header, the
// elementwise module's included.
func TestEmittedHeader(t *testing.T) {
	t.Setenv("SWIGEN_CACHE_DIR", t.TempDir())
	header := map[string]*regexp.Regexp{
		".cu": regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.\n`),
		".go": regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.\n`),
		".py": regexp.MustCompile(`^# Code generated .* DO NOT EDIT\.\n`),
	}
	for _, args := range [][]string{{"--go-package", "kernels"}, {"--py-package", "kernels"}} {
		dir, _ := emitWithFakeCompiler(t, false, append(args, withUnfusedPath...)...)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		checked := map[string]int{}
		for _, e := range ents {
			re := header[filepath.Ext(e.Name())]
			if re == nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if !re.Match(b) {
				first, _, _ := strings.Cut(string(b), "\n")
				t.Errorf("%v: %s starts with %q, not the generated-code header", args, e.Name(), first)
			}
			checked[filepath.Ext(e.Name())]++
		}
		if checked[".cu"] < 4 || checked[".go"]+checked[".py"] != 1 {
			t.Errorf("%v: checked %v; want the 3 kernels' and the elementwise module's .cu and one bindings file", args, checked)
		}
	}
}
