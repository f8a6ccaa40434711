package tune

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// execRunner returns an ExecRunner that runs the test binary as the fake
// worker, in the mode modes[job index].
func execRunner(t *testing.T, timeout time.Duration, modes map[int]string) *ExecRunner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &ExecRunner{
		Path:    exe,
		Args:    func(j Job, out string) []string { return []string{modes[j.Index], out, j.Config.Name()} },
		Env:     []string{helperEnv + "=worker"},
		Timeout: timeout,
		Dir:     t.TempDir(),
	}
}

func TestExecRunner(t *testing.T) {
	t.Parallel()
	cand := testCands(1)[0]
	for _, tt := range []struct {
		mode      string
		want      Status
		wantErr   string
		wantUS    float64
		maxWallS  float64
		ceilKnown bool
	}{
		{mode: "ok:123.5", want: StatusOK, wantUS: 123.5, ceilKnown: true, maxWallS: 10},
		{mode: "wrong", want: StatusWrong, wantErr: "dgate", maxWallS: 10},
		{mode: "hang", want: StatusTimeout, wantErr: "no result within 1s; worker process group killed", maxWallS: 5},
		{mode: "crash", want: StatusFault, wantErr: "CUDA_ERROR_ILLEGAL_INSTRUCTION", maxWallS: 10},
		{mode: "garbage", want: StatusFault, wantErr: "worker exited without a result", maxWallS: 10},
		{mode: "slowexit", want: StatusOK, wantErr: "killed after 1s while exiting", wantUS: 100, maxWallS: 5},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			// Only the hanging modes wait for the limit; the others get
			// plenty, since a loaded machine (or -race) starts slowly.
			limit := 20 * time.Second
			if strings.Contains(tt.mode, "hang") || tt.mode == "slowexit" {
				limit = time.Second
			}
			r := execRunner(t, limit, map[int]string{7: tt.mode})
			out, err := r.Run(context.Background(), Job{Index: 7, Config: cand, Device: 2})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.want || !strings.Contains(out.Error, tt.wantErr) || out.US != tt.wantUS {
				t.Errorf("status %s us %v error %q; want %s %v containing %q", out.Status, out.US, out.Error, tt.want, tt.wantUS, tt.wantErr)
			}
			if out.Config != cand.Name() || out.Device != 2 {
				t.Errorf("config %q device %d", out.Config, out.Device)
			}
			if out.WallS <= 0 || out.WallS > tt.maxWallS {
				t.Errorf("wall %vs", out.WallS)
			}
			if out.Ceilings.Known() != tt.ceilKnown {
				t.Errorf("ceilings %+v", out.Ceilings)
			}
			if ents, _ := os.ReadDir(r.Dir); len(ents) != 0 {
				t.Errorf("result files left behind: %d", len(ents))
			}
		})
	}
}

// TestExecRunnerKillsGroup checks that a timeout kills what the worker
// started too, not only the worker.
func TestExecRunnerKillsGroup(t *testing.T) {
	t.Parallel()
	r := execRunner(t, 2*time.Second, map[int]string{0: "hangkids"})
	// The result file name is the runner's; learn it from the args.
	var out string
	args := r.Args
	r.Args = func(j Job, o string) []string { out = o; return args(j, o) }
	res, err := r.Run(context.Background(), Job{Config: testCands(1)[0]})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusTimeout {
		t.Fatalf("status %s: %s", res.Status, res.Error)
	}
	b, err := os.ReadFile(out + ".pid")
	if err != nil {
		t.Fatalf("grandchild pid: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d survived the timeout kill", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting to be reaped is dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

func TestExecRunnerCancel(t *testing.T) {
	t.Parallel()
	r := execRunner(t, time.Minute, map[int]string{0: "hang"})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.Run(ctx, Job{Config: testCands(1)[0]})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled run: err %v after %v; want an error soon", err, time.Since(start))
	}
}

// TestSweepWithWorkers runs a whole sweep through real child processes:
// a hang and a crash cost only their candidates.
func TestSweepWithWorkers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tune.json")
	modes := map[int]string{0: "ok:300", 1: "hang", 2: "crash", 3: "ok:250", 4: "wrong"}
	r := execRunner(t, 3*time.Second, modes)
	res, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: testCands(5), Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, c := range testCands(5) {
		r, _ := res.Entry.Result(c.Name())
		got += fmt.Sprintf("%s ", r.Status)
	}
	if want := "ok timeout fault ok wrong "; got != want {
		t.Errorf("statuses %q, want %q", got, want)
	}
	if best, _ := res.Entry.Best(); best.US != 250 {
		t.Errorf("best %+v", best)
	}
}
