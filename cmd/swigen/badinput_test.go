package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	for _, tt := range badInputs {
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
			cmd := exec.Command(exe, tt.args...)
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
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr does not name %q:\n%s", tt.want, stderr.String())
			}
			for name, d := range dirs {
				if ents, _ := os.ReadDir(d); len(ents) > 0 {
					t.Errorf("the %s directory gained %d entries (first %s)", name, len(ents), ents[0].Name())
				}
			}
		})
	}
}
