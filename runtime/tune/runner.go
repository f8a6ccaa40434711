package tune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// Job is one candidate handed to a worker.
type Job struct {
	Index  int // position in the sweep's candidate list
	Config tiling.Config
	// Probe is the probe the kernel is built with (the generator's
	// probes, by name); "" for the product kernel.
	Probe  string
	Shape  tiling.Shape
	Device int // GPU ordinal
	// BestUS is the best passing time so far (0: none yet); a candidate
	// whose first samples are SlowFactor times slower is stopped early.
	BestUS     float64
	SlowFactor float64
	// Ceilings already measured for this sweep; zero asks the worker to
	// measure them (and return them in its Output).
	Ceilings Ceilings
	// Reps and Warmup, when above 0, override the worker's timing (a
	// screening sweep asks for little).
	Reps   int
	Warmup time.Duration
}

// Name is the name the job's result is recorded under
// (manifest.ProbedName: the config's for the product kernel).
func (j Job) Name() string { return manifest.ProbedName(j.Config, j.Probe) }

// Output is what a worker reports: the candidate's Result, plus the
// ceilings when it measured them.
type Output struct {
	Result
	Ceilings Ceilings `json:"ceilings"`
	// Phases is where the worker's time went (build, verify, ceilings,
	// probe, bench), for its log; not recorded in the DB.
	Phases []Phase `json:"phases,omitempty"`
}

// Phase is one step of a measurement and its wall time.
type Phase struct {
	Name string  `json:"name"`
	S    float64 `json:"s"`
}

// WriteOutput writes o as the JSON result file a worker hands back.
func WriteOutput(path string, o Output) error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return fmt.Errorf("tune: encode worker result: %w", err)
	}
	return writeAtomic(path, append(b, '\n'))
}

// ReadOutput reads a worker's JSON result file.
func ReadOutput(path string) (Output, error) {
	var o Output
	b, err := os.ReadFile(path)
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return o, fmt.Errorf("tune: worker result %s: %w", path, err)
	}
	if o.Status == "" {
		return o, fmt.Errorf("tune: worker result %s: no status", path)
	}
	return o, nil
}

// Runner measures one job in isolation. It always returns an Output whose
// Status says what happened to the candidate; the error is non-nil only
// when the sweep itself is being cancelled (ctx), and then the Output must
// not be recorded.
type Runner interface {
	Run(ctx context.Context, j Job) (Output, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, j Job) (Output, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, j Job) (Output, error) { return f(ctx, j) }

// ExecRunner runs each job in a child process: Path with Args(job, out),
// where the child writes its Output as JSON to the file out. A child that
// outlives Timeout is killed with its whole process group and recorded as
// StatusTimeout; one that exits without a result (a crash, a fault that
// killed it) is StatusFault with the tail of its stderr.
type ExecRunner struct {
	Path    string
	Args    func(j Job, out string) []string
	Env     []string      // added to the parent's environment
	Timeout time.Duration // per job; 0 means no limit
	Dir     string        // where result files go; "" means os.TempDir()
	// Log, when set, receives the child's stderr as it runs.
	Log io.Writer
}

// stderrTail is how much of a failed child's stderr goes into its Error.
const stderrTail = 2000

// Run implements Runner.
func (r *ExecRunner) Run(ctx context.Context, j Job) (Output, error) {
	dir := r.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	out := filepath.Join(dir, fmt.Sprintf("tune-job-%d-dev%d-%d.json", j.Index, j.Device, os.Getpid()))
	os.Remove(out)
	defer os.Remove(out)

	cctx := ctx
	cancel := func() {}
	if r.Timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, r.Timeout)
	}
	defer cancel()
	cmd := exec.CommandContext(cctx, r.Path, r.Args(j, out)...)
	isolate(cmd)
	// Wait returns this long after a kill even if a grandchild still holds
	// the stderr pipe.
	cmd.WaitDelay = 2 * time.Second
	if len(r.Env) > 0 {
		cmd.Env = append(os.Environ(), r.Env...)
	}
	tail := &tailWriter{max: stderrTail}
	var w io.Writer = tail
	if r.Log != nil {
		w = io.MultiWriter(tail, r.Log)
	}
	cmd.Stderr = w
	cmd.Stdout = w
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)

	if ctx.Err() != nil {
		return Output{}, fmt.Errorf("tune: %s: %w", j.Name(), ctx.Err())
	}
	res, readErr := ReadOutput(out)
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded)
	switch {
	case readErr == nil:
		// The child got as far as writing its verdict. A kill after that
		// (stuck freeing a dead context) does not change it.
		if timedOut {
			res.Error = joinMsg(res.Error, fmt.Sprintf("worker killed after %v while exiting", r.Timeout))
		}
	case timedOut:
		res = Output{Result: Result{Status: StatusTimeout,
			Error: joinMsg(fmt.Sprintf("no result within %v; worker process group killed", r.Timeout), tail.String())}}
	default:
		why := "worker exited without a result"
		if runErr != nil {
			why = fmt.Sprintf("worker failed (%v) without a result", runErr)
		}
		if !errors.Is(readErr, os.ErrNotExist) {
			why += fmt.Sprintf(" (%v)", readErr)
		}
		res = Output{Result: Result{Status: StatusFault, Error: joinMsg(why, tail.String())}}
	}
	res.Config = j.Name()
	res.Device = j.Device
	res.WallS = wall.Seconds()
	return res, nil
}

func joinMsg(a, b string) string {
	b = strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ": " + b
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// reset forgets what was written so far (a worker's next job starts a
// fresh tail).
func (t *tailWriter) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = t.b[:0]
}
