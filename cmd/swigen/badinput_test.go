package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliHelperEnv makes the test binary run as swigen (the helper-process
// pattern), so the bad-input test below sees real processes: exit codes,
// working directory and HOME as a user's shell would.
const cliHelperEnv = "SWIGEN_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliHelperEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// badInputs are invalid values and combinations across every command:
// each must exit 2 before any GPU, compile or sweep, with a message that
// names the value (want), and write nothing.
var badInputs = []struct {
	args []string
	want string
}{
	// The root, help and completion.
	{[]string{""}, `unknown command ""`},
	{[]string{"emti"}, `unknown command "emti"`},
	{[]string{"--bogus"}, "unknown flag: --bogus"},
	{[]string{"help", "foo"}, `unknown help topic "foo"`},
	{[]string{"help", "tune", "nope"}, `unknown help topic "tune nope"`},
	{[]string{"completion", "foo"}, `unknown command "foo"`},
	{[]string{"version", "x"}, `unknown command "x"`},
	{[]string{"version", "--bogus"}, "unknown flag: --bogus"},
	// emit
	{[]string{"emit", "--no-compile", "--kernel", ""}, "--kernel: no kernel given"},
	{[]string{"emit", "--no-compile", "--kernel", "conv"}, "conv"},
	{[]string{"emit", "--no-compile", "--arch", "sm_80"}, `"sm_80"`},
	{[]string{"emit", "--no-compile", "--arch", ""}, "--arch"},
	{[]string{"emit", "--no-compile", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"emit", "--no-compile", "--shape", "0,768,4608"}, `"0"`},
	{[]string{"emit", "--no-compile", "--shape", "16384,770,4608"}, "770"},
	{[]string{"emit", "--no-compile", "--shape", "16384,768"}, "want three sizes"},
	{[]string{"emit", "--no-compile", "--shape", "a,b,c"}, `"a"`},
	{[]string{"emit", "--no-compile", "--tile", "12"}, `"12"`},
	{[]string{"emit", "--no-compile", "--tile", "128x128"}, "128x128"},
	{[]string{"emit", "--no-compile", "--tile", "0x128x64"}, "0x128x64"},
	{[]string{"emit", "--no-compile", "--tile", "100x128x64"}, "100"},
	{[]string{"emit", "--no-compile", "--stages", "0"}, "--stages 0"},
	{[]string{"emit", "--no-compile", "--stages", "-1"}, "--stages -1"},
	{[]string{"emit", "--no-compile", "--stages", "x"}, `invalid argument "x"`},
	{[]string{"emit", "--no-compile", "--stages", "99"}, "99"},
	{[]string{"emit", "--no-compile", "--cluster", "3x1"}, "3x1"},
	{[]string{"emit", "--no-compile", "--cluster", "x"}, `"x"`},
	{[]string{"emit", "--no-compile", "--schedule", "fast"}, "fast"},
	{[]string{"emit", "--no-compile", "--arch", "sm_100a", "--schedule", "pingpong"}, "pingpong"},
	{[]string{"emit", "--no-compile", "--l2k", "--arch", "sm_100a"}, "--l2k applies to sm_90a configs only"},
	{[]string{"emit", "--no-compile", "--name", "x"}, `"x"`},
	{[]string{"emit", "--no-compile", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s9_c1x1_pingpong"}, "s9"},
	{[]string{"emit", "--no-compile", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong", "--arch", "sm_90a"}, "drop --arch"},
	{[]string{"emit", "--no-compile", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong", "--stages", "3"}, "--stages"},
	{[]string{"emit", "--no-compile", "--catalog", "--tile", "128x128x64"}, "cannot be combined with --tile"},
	{[]string{"emit", "--no-compile", "--catalog", "--name", "x"}, "--catalog and --name"},
	{[]string{"emit", "--no-compile", "--catalog", "--shape", "1,8,8"}, "--catalog does not use --shape"},
	{[]string{"emit", "--no-compile", "--tuned", "missing-db.json"}, "missing-db.json"},
	{[]string{"emit", "--no-compile", "--tuned", "x.json", "--catalog"}, "--tuned"},
	{[]string{"emit", "--no-compile", "-o", ""}, "-o"},
	{[]string{"emit", "--no-compile", "--go-package", "1bad"}, "1bad"},
	{[]string{"emit", "--no-compile", "--go-package", "a-b"}, "a-b"},
	{[]string{"emit", "--no-compile", "--kernel", "gemm", "--schedule", "overlap"}, "overlap"},
	{[]string{"emit", "--no-compile", "--epi", "3x3"}, "3x3"},
	{[]string{"emit", "--no-compile", "--major-a", "q"}, `"q"`},
	{[]string{"emit", "--no-compile", "extra"}, `unknown command "extra"`},
	{[]string{"emit", "--nvcc", "/nonexistent-swigen/nvcc", "--tile", "12"}, `"12"`},
	// list
	{[]string{"list", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"list", "--arch", "sm_80"}, `"sm_80"`},
	{[]string{"list", "--kernel", "conv"}, "conv"},
	{[]string{"list", "extra"}, `unknown command "extra"`},
	// verify
	{[]string{"verify", "--name", "x"}, `"x"`},
	{[]string{"verify", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s9_c1x1_pingpong"}, "s9"},
	{[]string{"verify", "--shape", "0,8,8"}, `"0"`},
	{[]string{"verify", "--shape", "8,9,8"}, "9"},
	{[]string{"verify", "--kernel", "conv"}, "conv"},
	{[]string{"verify", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"verify", "--probe", "nope"}, "nope"},
	{[]string{"verify", "--heuristic-shape", "1,2,3"}, "2"},
	{[]string{"verify", "extra"}, `unknown command "extra"`},
	// bench
	{[]string{"bench", "nope"}, `"nope"`},
	{[]string{"bench", "bwd", "--reps", "0"}, "--reps 0"},
	{[]string{"bench", "bwd", "--path", "sideways"}, `path "sideways"`},
	{[]string{"bench", "bwd", "--path", "unfused", "--probe", "trace"}, "--path unfused with --probe trace"},
	{[]string{"verify", "--path", "sideways"}, `--path "sideways"`},
	{[]string{"emit", "--path", "sideways"}, `path "sideways"`},
	{[]string{"verify", "--kernel", "gemm", "--path", "unfused"}, "gemm has no unfused path"},
	{[]string{"verify", "--kernel", "moe_fwd_gateup", "--shape", "100,256,512"}, "--shape with moe_fwd_gateup"},
	{[]string{"verify", "--name", "moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", "--shape", "100,256,512"}, "--shape with moe_fwd_gateup"},
	{[]string{"verify", "--kernel", "moe_bwd_dswiglu", "--shape", "100,256,512"}, "--shape with moe_bwd_dswiglu"},
	{[]string{"bench", "bwd", "--reps", "-1"}, "--reps -1"},
	{[]string{"bench", "bwd", "--reps", "19"}, "--reps 19"},
	{[]string{"bench", "bwd", "--warmup", "-1s"}, "--warmup -1s"},
	{[]string{"bench", "bwd", "--warmup", "soon"}, `"soon"`},
	{[]string{"bench", "bwd", "--shape", "0,768,4608"}, `"0"`},
	{[]string{"bench", "bwd", "--shape", "1,7,8"}, "7"},
	{[]string{"bench", "bwd", "--suite", "--shape", "1,8,8"}, "suite"},
	{[]string{"bench", "bwd", "--name", "x"}, `"x"`},
	{[]string{"bench", "bwd", "--name", "gemm_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"}, "gemm"},
	{[]string{"bench", "gateup", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"}, "bwd_dswiglu"},
	{[]string{"bench", "bwd", "--kernel", "fwd_gateup"}, "fwd_gateup"},
	{[]string{"bench", "bwd", "--probe", "nope"}, "nope"},
	{[]string{"bench", "bwd", "--model", "a100"}, "a100"},
	{[]string{"bench", "bwd", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"bench", "bwd", "--tuned", "x.json", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"}, "--tuned"},
	{[]string{"bench", "gemm", "--reps", "3"}, "--reps 3"},
	{[]string{"bench", "gemm", "--shape", "8,8"}, "8,8"},
	{[]string{"bench", "gemm", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"bench", "gemm", "--name", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong"}, "bwd_dswiglu"},
	{[]string{"bench", "mlp", "--reps", "3"}, "--reps 3"},
	{[]string{"bench", "mlp", "--shape", "1,2,3"}, "2"},
	{[]string{"bench", "mlp", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"bench", "mlp", "--check-shape", "0,8,8"}, `"0"`},
	// tune
	{[]string{"tune", "--kernel", "fwd_down"}, "fwd_down"},
	{[]string{"tune", "--kernel", "conv"}, "conv"},
	{[]string{"tune", "--arch", "sm_80"}, "sm_80"},
	{[]string{"tune", "--dtype", "fp8"}, `"fp8"`},
	{[]string{"tune", "--shape", "0,768,4608"}, `"0"`},
	{[]string{"tune", "--shape", "1,2,3"}, "2"},
	{[]string{"tune", "--suite", "--shape", "1,8,8"}, "suite"},
	{[]string{"tune", "--suite", "--report", "r.svg"}, "--report with --suite"},
	{[]string{"tune", "--shard", "2/2"}, "2/2"},
	{[]string{"tune", "--shard", "x"}, `"x"`},
	{[]string{"tune", "--max", "-1"}, "--max -1"},
	{[]string{"tune", "--jobs", "0"}, "--jobs 0"},
	{[]string{"tune", "--jobs", "-1"}, "--jobs -1"},
	{[]string{"tune", "--devices", "-1"}, "--devices -1"},
	{[]string{"tune", "--devices", "0,0"}, "lists 0 twice"},
	{[]string{"tune", "--slow-factor", "0.5"}, "--slow-factor 0.5"},
	{[]string{"tune", "--screen-keep", "-1"}, "--screen-keep -1"},
	{[]string{"tune", "--reps", "0"}, "--reps 0"},
	{[]string{"tune", "--reps", "5"}, "--reps 5"},
	{[]string{"tune", "--warmup", "-1s"}, "--warmup -1s"},
	{[]string{"tune", "--timeout", "0s"}, "--timeout 0s"},
	{[]string{"tune", "--sync-timeout", "-1s"}, "--sync-timeout -1s"},
	{[]string{"tune", "--store-out", "--kernel", "gemm"}, "--store-out with --kernel gemm"},
	{[]string{"tune", "--report", "/nonexistent-swigen-dir/r.svg"}, "/nonexistent-swigen-dir/r.svg"},
	{[]string{"tune", "--report", "."}, "is a directory"},
	{[]string{"tune", "--filter", "nothing-matches-this"}, "nothing-matches-this"},
	{[]string{"tune", "extra"}, `unknown command "extra"`},
	{[]string{"tune", "merge"}, "requires at least 1 arg"},
	{[]string{"tune", "merge", "a.json"}, "-o OUT is required"},
	{[]string{"tune", "merge", "missing.json", "-o", "out.json"}, "missing.json"},
	{[]string{"tune", "table"}, "requires at least 1 arg"},
	{[]string{"tune", "table", "missing.json"}, "missing.json"},
	// doctor, diff
	{[]string{"doctor", "--nvcc", "/nonexistent-swigen-nvcc"}, "/nonexistent-swigen-nvcc"},
	{[]string{"doctor", "extra"}, `unknown command "extra"`},
	{[]string{"diff", "--tile", "12"}, `"12"`},
	{[]string{"diff", "--arch", "sm_80"}, `"sm_80"`},
	{[]string{"diff"}, "manifest.json"},
	{[]string{"toolchain", "foo"}, `unknown command "foo"`},
	{[]string{"toolchain", "install", "extra"}, `unknown command "extra"`},
	{[]string{"toolchain", "install", "--bogus"}, "unknown flag: --bogus"},
	// Values that once reached the GPU step or passed unchecked.
	{[]string{"verify", "--tol", "Inf"}, "--tol +Inf"},
	{[]string{"verify", "--tol", "NaN"}, "--tol NaN"},
	{[]string{"tune", "--slow-factor", "NaN"}, "--slow-factor NaN"},
	{[]string{"tune", "--slow-factor", "Inf"}, "--slow-factor +Inf"},
	{[]string{"verify", "--device", "-1"}, "--device -1"},
	{[]string{"bench", "bwd", "--device", "-1"}, "--device -1"},
	{[]string{"bench", "gemm", "--device", "-1"}, "--device -1"},
	{[]string{"bench", "mlp", "--device", "-1"}, "--device -1"},
	{[]string{"bench", "bwd", "--model", "h200", "--name", "../../x"}, "../../x"},
	{[]string{"bench", "bwd", "--model", "h200", "--tuned", "trunc.json"}, "trunc.json"},
	{[]string{"bench", "bwd", "--path="}, "--path is empty"},
	{[]string{"doctor", "--nvcc", "/dev/zero"}, "/dev/zero"},
	{[]string{"doctor", "--nvcc", "fifo"}, "fifo"},
	{[]string{"emit", "--nvcc", "/nonexistent-swigen/nvcc"}, "/nonexistent-swigen/nvcc"},
	{[]string{"emit", "--nvcc", "zero"}, "zero"},
	{[]string{"verify", "--nvcc", "fifo"}, "fifo"},
	{[]string{"bench", "bwd", "--nvcc", "/dev/zero"}, "/dev/zero"},
	{[]string{"tune", "--nvcc", "trunc.json"}, "trunc.json is not an executable file"},
	{[]string{"emit", "--no-compile", "--arch", "sm_90a", "--clc-stages", "2"}, "--clc-stages applies to sm_100a configs only"},
	{[]string{"emit", "--no-compile", "--path", "unfused", "--kernel", "gemm"}, "gemm has no unfused path"},
	{[]string{"emit", "--no-compile", "--schedule="}, "--schedule: empty value"},
	{[]string{"emit", "--no-compile", "--path="}, "--path is empty"},
	{[]string{"toolchain", "install", "--venv=", "--dry-run"}, "--venv is empty"},
	// Files that are not what the flag wants: each refused before any
	// read that could hang (a FIFO) or never end (/dev/zero).
	{[]string{"emit", "--no-compile", "--tuned", "fifo"}, "fifo: not a regular file (a FIFO)"},
	{[]string{"emit", "--no-compile", "--tuned", "zero"}, "zero: not a regular file"},
	{[]string{"emit", "--no-compile", "--tuned", "adir"}, "adir"},
	{[]string{"emit", "--no-compile", "--tuned", "trunc.json"}, "trunc.json"},
	{[]string{"emit", "--no-compile", "--tuned", "loop"}, "loop"},
	{[]string{"bench", "bwd", "--tuned", "fifo"}, "fifo"},
	{[]string{"tune", "--db", "fifo"}, "fifo"},
	{[]string{"tune", "--db", "zero"}, "zero"},
	{[]string{"tune", "--db", "trunc.json"}, "trunc.json"},
	{[]string{"tune", "merge", "fifo", "-o", "m.json"}, "fifo"},
	{[]string{"tune", "merge", "zero", "-o", "m.json"}, "zero"},
	{[]string{"tune", "merge", "trunc.json", "-o", "m.json"}, "trunc.json"},
	{[]string{"tune", "table", "fifo"}, "fifo"},
	{[]string{"tune", "table", "zero"}, "zero"},
	{[]string{"tune", "table", "adir"}, "adir"},
	{[]string{"diff", "-o", "adir"}, "no manifest.json in adir"},
	{[]string{"diff", "-o", "fifo"}, "fifo"},
	// A file of the user's where emit would write its own.
	{[]string{"emit", "--no-compile", "--kernel", "gemm", "--arch", "sm_90a", "--go-package", "mine", "-o", "mine-go"}, "mine-go/swigen_bindings.go exists and swigen did not write it"},
	{[]string{"emit", "--no-compile", "--kernel", "gemm", "--arch", "sm_90a", "--py-package", "mine", "-o", "mine-py"}, "mine-py/__init__.py exists and swigen did not write it"},
	{[]string{"emit", "--no-compile", "--kernel", "gemm", "--arch", "sm_90a", "-o", "mine-idx"}, "mine-idx/manifest.json exists and swigen did not write it"},
}

// badInputFixtures makes, in the bad inputs' working directory, the files
// the table names: a FIFO, a link to /dev/zero, a truncated DB, a
// directory, a symlink loop, and directories holding a user's own
// bindings and index.
func badInputFixtures(t *testing.T, dir string) {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero": "/dev/zero", "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{
		"trunc.json":                 `{"entries": [`,
		"adir/keep":                  "",
		"mine-go/swigen_bindings.go": "package mine\n",
		"mine-py/__init__.py":        "print('mine')\n",
		"mine-idx/manifest.json":     `{"name": "my app"}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBadInputs runs every bad input as a user would: each exits 2 with a
// message naming the value, and leaves the working directory, HOME and
// the build cache as they were (empty).
func TestBadInputs(t *testing.T) {
	t.Parallel()
	if len(badInputs) < 100 {
		t.Fatalf("%d bad inputs; the table is to cover at least 100", len(badInputs))
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := badInputs
	if os.Getenv(longHardenEnv) == "1" {
		cases = append(slices.Clone(cases), generatedBadInputs()...)
	}
	t.Logf("%d bad inputs", len(cases))
	for _, tt := range cases {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dirs := map[string]string{}
			for _, d := range []string{"work", "home", "cache"} {
				dirs[d] = filepath.Join(root, d)
				if err := os.Mkdir(dirs[d], 0o755); err != nil {
					t.Fatal(err)
				}
			}
			badInputFixtures(t, dirs["work"])
			before := treeSums(t, dirs["work"])
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, exe, tt.args...)
			cmd.WaitDelay = time.Second
			cmd.Dir = dirs["work"]
			cmd.Env = append(os.Environ(), cliHelperEnv+"=1", "HOME="+dirs["home"], "XDG_CACHE_HOME="+filepath.Join(dirs["home"], ".cache"),
				"SWIGEN_CACHE_DIR="+dirs["cache"])
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr.String())
			}
			if ctx.Err() != nil {
				t.Fatalf("hangs: killed after %v", time.Minute)
			}
			// A generated input's last word is --flag=value: naming either is
			// naming it (a parser may quote a part of the value).
			flag, _, _ := strings.Cut(tt.args[len(tt.args)-1], "=")
			if !strings.Contains(stderr.String(), tt.want) && !(strings.HasPrefix(flag, "--") && strings.Contains(stderr.String(), flag)) {
				t.Errorf("stderr does not name %q:\n%s", tt.want, stderr.String())
			}
			if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "panic:") {
				t.Errorf("a crash:\n%s", stderr.String())
			}
			if after := treeSums(t, dirs["work"]); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the working directory changed:\nbefore %v\nafter  %v", before, after)
			}
			for _, name := range []string{"home", "cache"} {
				if ents, _ := os.ReadDir(dirs[name]); len(ents) > 0 {
					t.Errorf("the %s directory gained %d entries (first %s)", name, len(ents), ents[0].Name())
				}
			}
		})
	}
}

// generatedBadInputs crosses bad values of the flags many commands share
// with the commands that take them (SWIGEN_HARDEN_LONG=1): each must exit
// 2 naming the value (or, for an empty one, the flag), write nothing and
// not hang.
func generatedBadInputs() []struct {
	args []string
	want string
} {
	type cmdFlags = [][]string
	var out []struct {
		args []string
		want string
	}
	add := func(cmds cmdFlags, flag string, values ...string) {
		for _, c := range cmds {
			for _, v := range values {
				want := v
				if strings.TrimSpace(v) == "" || len(v) > 200 {
					want = strings.TrimLeft(flag, "-")
				}
				args := append(slices.Clone(c), flag+"="+v)
				out = append(out, struct {
					args []string
					want string
				}{args, want})
			}
		}
	}
	emit := []string{"emit", "--no-compile"}
	mkiShapes := cmdFlags{emit, {"diff", "--no-compile"}, {"verify"}, {"bench", "bwd"}, {"bench", "mlp"}, {"tune"}}
	add(mkiShapes, "--shape", "0,768,4608", "-1,768,4608", "16384,770,4608", "1,2", "a,b,c", " ", "1,8,8,8",
		"99999999999999999999,8,8", "1e3,8,8", "0x10,8,8", "16384,768,4608,", "NaN,8,8")
	add(cmdFlags{emit, {"list"}, {"tune"}, {"diff", "--no-compile"}}, "--arch", "sm_80", "sm_100", "x", "sm_90a;sm_100a", "90", "sm_90b")
	add(cmdFlags{emit, {"list"}, {"tune"}, {"verify"}, {"bench", "bwd"}, {"bench", "gemm"}}, "--dtype", "fp8", "float", "bf", "int8")
	add(cmdFlags{emit, {"verify"}, {"bench", "bwd"}, {"bench", "gemm"}, {"diff", "--no-compile"}}, "--name",
		"x", "../../x", "/etc/passwd", "bwd_dswiglu_sm90a_bf16_m128n128k64_s9_c1x1_pingpong", strings.Repeat("a", 5000), "gemm_sm90a_bf16_m0n128k64_s4_c1x1_pingpong")
	add(cmdFlags{emit, {"bench", "bwd"}}, "--tuned", "fifo", "zero", "adir", "trunc.json", "loop", "/dev/urandom")
	add(cmdFlags{{"tune"}}, "--db", "fifo", "zero", "adir", "trunc.json", "loop", "/dev/urandom")
	add(cmdFlags{{"emit"}, {"verify"}, {"bench", "bwd"}, {"bench", "gemm"}, {"bench", "mlp"}, {"tune"}, {"doctor"}}, "--nvcc", "fifo", "zero", "/nonexistent-swigen/nvcc", "/dev/null")
	add(cmdFlags{{"verify"}, {"bench", "bwd"}, {"bench", "gemm"}, {"bench", "mlp"}}, "--device", "-1", "-5", "x")
	add(cmdFlags{{"bench", "bwd"}, {"bench", "gemm"}, {"bench", "mlp"}, {"tune"}}, "--reps", "0", "-1", "19", "x", "1e9x")
	add(cmdFlags{{"bench", "bwd"}, {"bench", "gemm"}, {"bench", "mlp"}, {"tune"}}, "--warmup", "-1s", "soon", "1")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--tile", "12", "128x128", "0x128x64", "x", "128x128x64x1", "-128x128x64")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--stages", "0", "-1", "x", "99")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--cluster", "3x1", "x", "0x1", "1x0")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--schedule", "fast", "")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--path", "sideways", "")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--go-package", "1bad", "a-b", "a.b", "func")
	add(cmdFlags{emit, {"diff", "--no-compile"}}, "--kernel", "conv", "")
	add(cmdFlags{{"verify"}}, "--tol", "0", "-1", "Inf", "NaN", "x")
	add(cmdFlags{{"tune"}}, "--slow-factor", "0.5", "1", "NaN", "Inf", "-Inf")
	add(cmdFlags{{"tune"}}, "--shard", "2/2", "x", "0/0", "-1/2", "1/")
	add(cmdFlags{{"tune"}}, "--jobs", "0", "-1")
	for _, f := range []string{"fifo", "zero", "adir", "trunc.json", "loop"} {
		out = append(out, struct {
			args []string
			want string
		}{[]string{"tune", "merge", f, "-o", "m.json"}, f}, struct {
			args []string
			want string
		}{[]string{"tune", "table", f}, f})
	}
	return out
}
