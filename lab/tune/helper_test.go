package tune

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/swigen/swigen/tiling"
)

// The test binary doubles as the fake worker and as a fake tuner (the
// standard helper-process pattern): with helperEnv set, TestMain runs the
// role named in it instead of the tests.
const helperEnv = "SWIGEN_TUNE_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "server":
		os.Exit(fakeServer())
	case "sweeper":
		os.Exit(fakeSweeper(os.Args[1:]))
	case "updater":
		os.Exit(fakeUpdater(os.Args[1:]))
	default:
		fmt.Fprintln(os.Stderr, "unknown helper role")
		os.Exit(2)
	}
}

// fakeSweeper runs a Sweep over testCands(N) into DB with an in-process
// runner that takes DELAY per candidate: args DB N DELAY. The test kills
// it with SIGKILL part way.
func fakeSweeper(args []string) int {
	n, _ := strconv.Atoi(args[1])
	d, _ := time.ParseDuration(args[2])
	_, err := Sweep(context.Background(), SweepOptions{
		DBPath: args[0], Key: testKey(), Candidates: testCands(n),
		Runner: RunnerFunc(func(ctx context.Context, j Job) (Output, error) {
			time.Sleep(d)
			return Output{Result: Result{Status: StatusOK, US: 100 + float64(j.Index)}}, nil
		}),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// fakeUpdater adds N results named PREFIX-i to DB, one UpdateDB each:
// args DB PREFIX N.
func fakeUpdater(args []string) int {
	n, _ := strconv.Atoi(args[2])
	for i := 0; i < n; i++ {
		_, err := UpdateDB(args[0], func(db *DB) error {
			db.Upsert(testKey()).Set(Result{Config: fmt.Sprintf("%s-%03d", args[1], i), Status: StatusOK, US: 1})
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// helperCmd runs the test binary in a helper role.
func helperCmd(t *testing.T, role string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+role)
	return cmd
}

func testKey() Key {
	return Key{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM90a, DType: tiling.BF16,
		Shape: tiling.Shape{M: 16384, K: 768, I: 4608}, GPU: "NVIDIA H200", Driver: 13000,
		Compiler: "nvcc 13.0.88", Templates: "abc123"}
}

// testCands returns the first n configs of the sm_90a bf16 space.
func testCands(n int) []tiling.Config {
	sp := tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)
	if n > len(sp) {
		n = len(sp)
	}
	return sp[:n]
}
