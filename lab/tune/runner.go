package tune

import (
	"context"
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
	Probe string
	Shape tiling.Shape
	// Experts and Routing complete a grouped kind's shape (Key.Experts,
	// Key.Routing); zero and empty otherwise.
	Experts int    `json:"experts,omitempty"`
	Routing string `json:"routing,omitempty"`
	Device  int    // GPU ordinal
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

// stderrTail is how much of a failed worker's stderr goes into its Error.
const stderrTail = 2000

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
