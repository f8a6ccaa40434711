package tune

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeServer is a long-lived worker: each stdin line is "MODE NAME", and
// each answer an Output line on fd 3 whose Error names the worker's pid.
// Modes: ok:<us>, wrong, fault (answers a fault, then exits as a real
// worker does), hang, hangkids:<pidfile> (hangs with a hanging child),
// crash (exit 3 with no answer), garbage.
func fakeServer() int {
	res := os.NewFile(3, "results")
	sc := bufio.NewScanner(os.Stdin)
	pid := fmt.Sprintf("pid %d", os.Getpid())
	answer := func(o Output) {
		b, _ := json.Marshal(o)
		res.Write(append(b, '\n'))
	}
	for sc.Scan() {
		mode, name, _ := strings.Cut(sc.Text(), " ")
		switch {
		case strings.HasPrefix(mode, "ok:"):
			us, _ := strconv.ParseFloat(strings.TrimPrefix(mode, "ok:"), 64)
			answer(Output{Result: Result{Config: name, Status: StatusOK, US: us, BaselineUS: 300, Error: pid},
				Ceilings: Ceilings{GemmTFLOPs: 700, CopyGBs: 4000}})
		case mode == "wrong":
			answer(Output{Result: Result{Config: name, Status: StatusWrong, Error: "dgate rel_frob=0.5 " + pid}})
		case mode == "fault":
			answer(Output{Result: Result{Config: name, Status: StatusFault, Error: "CUDA_ERROR_LAUNCH_FAILED " + pid}})
			return 0
		case mode == "hang":
			time.Sleep(time.Hour)
		case strings.HasPrefix(mode, "hangkids:"):
			// A grandchild that hangs too; its pid goes to the named file.
			kid := exec.Command("sleep", "3600")
			if err := kid.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			os.WriteFile(strings.TrimPrefix(mode, "hangkids:"), []byte(strconv.Itoa(kid.Process.Pid)), 0o644)
			time.Sleep(time.Hour)
		case mode == "crash":
			fmt.Fprintln(os.Stderr, "CUDA_ERROR_ILLEGAL_INSTRUCTION: the kernel trapped")
			return 3
		case mode == "crashkids":
			// A child (a compiler, say) that inherits the results pipe
			// and outlives the crash.
			kid := exec.Command("sleep", "30")
			kid.ExtraFiles = []*os.File{res}
			kid.Start()
			fmt.Fprintln(os.Stderr, "CUDA_ERROR_LAUNCH_FAILED")
			return 3
		case mode == "garbage":
			res.Write([]byte("{not json\n"))
		}
	}
	return 0
}

func serveRunner(t *testing.T, timeout time.Duration, modes map[int]string) *ServeRunner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &ServeRunner{
		Path:    exe,
		Args:    func(int) []string { return nil },
		Encode:  func(j Job) (string, error) { return modes[j.Index] + " " + j.Name(), nil },
		Env:     []string{helperEnv + "=server"},
		Timeout: timeout,
	}
	t.Cleanup(func() { r.Close(5 * time.Second) })
	return r
}

// TestServeRunner runs jobs through one long-lived fake worker: answers
// come back in order from the same process until a fault, hang, crash or
// garbage costs that job alone and the next job gets a fresh worker.
func TestServeRunner(t *testing.T) {
	t.Parallel()
	modes := map[int]string{0: "ok:120", 1: "wrong", 2: "ok:110", 3: "hang", 4: "ok:100", 5: "crash", 6: "ok:90",
		7: "fault", 8: "ok:80", 9: "garbage", 10: "ok:70"}
	r := serveRunner(t, 2*time.Second, modes)
	cands := testCands(1)
	type row struct {
		status Status
		err    string
	}
	want := []row{{StatusOK, ""}, {StatusWrong, "dgate"}, {StatusOK, ""}, {StatusTimeout, "no result within 2s; worker process group killed"},
		{StatusOK, ""}, {StatusFault, "CUDA_ERROR_ILLEGAL_INSTRUCTION"}, {StatusOK, ""}, {StatusFault, "CUDA_ERROR_LAUNCH_FAILED"},
		{StatusOK, ""}, {StatusFault, "worker result unreadable"}, {StatusOK, ""}}
	pids := map[string]bool{}
	var last string
	for i, w := range want {
		out, err := r.Run(context.Background(), Job{Index: i, Config: cands[0], Device: 1})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != w.status || !strings.Contains(out.Error, w.err) || out.Config != cands[0].Name() || out.Device != 1 || out.WallS <= 0 {
			t.Errorf("job %d (%s): %s %q config %q dev %d wall %v; want %s containing %q", i, modes[i], out.Status, out.Error,
				out.Config, out.Device, out.WallS, w.status, w.err)
		}
		if out.Status == StatusOK || out.Status == StatusWrong {
			pid := out.Error[strings.Index(out.Error, "pid "):]
			pids[pid] = true
			if i == 2 && pid != last {
				t.Errorf("job 2 ran in %s, job 0 in %s: the worker was not reused", pid, last)
			}
			last = pid
		}
	}
	// Jobs 0-3 share a worker; each of the four failures that end one
	// (hang, crash, fault, garbage) makes the next job start a new one.
	if len(pids) != 5 || r.Starts() != 5 {
		t.Errorf("%d workers answered, %d started; want 5 each", len(pids), r.Starts())
	}
}

// TestServeRunnerCrashWithChild: a worker that crashes while a child of
// it still holds the results pipe is a fault at once, not a timeout.
func TestServeRunnerCrashWithChild(t *testing.T) {
	t.Parallel()
	r := serveRunner(t, 20*time.Second, map[int]string{0: "crashkids"})
	start := time.Now()
	out, err := r.Run(context.Background(), Job{Config: testCands(1)[0]})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusFault || !strings.Contains(out.Error, "exit status 3") || time.Since(start) > 10*time.Second {
		t.Errorf("%s %q after %v; want a fault naming exit status 3, soon", out.Status, out.Error, time.Since(start))
	}
}

func TestServeRunnerCancel(t *testing.T) {
	t.Parallel()
	r := serveRunner(t, time.Minute, map[int]string{0: "hang"})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := r.Run(ctx, Job{Config: testCands(1)[0]}); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled run: err %v after %v; want an error soon", err, time.Since(start))
	}
}

// TestSweepWithServer runs a whole sweep through one fake worker per
// device on two devices.
func TestSweepWithServer(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/tune.json"
	modes := map[int]string{0: "ok:300", 1: "hang", 2: "crash", 3: "ok:250", 4: "wrong", 5: "ok:260"}
	r := serveRunner(t, 3*time.Second, modes)
	res, err := Sweep(context.Background(), SweepOptions{DBPath: path, Key: testKey(), Candidates: testCands(6), Runner: r, Devices: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, c := range testCands(6) {
		r, _ := res.Entry.Result(c.Name())
		got += fmt.Sprintf("%s ", r.Status)
	}
	if want := "ok timeout fault ok wrong ok "; got != want {
		t.Errorf("statuses %q, want %q", got, want)
	}
	if best, _ := res.Entry.Best(); best.US != 250 {
		t.Errorf("best %+v", best)
	}
}
