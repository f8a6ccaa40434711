package tune

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/swigen/swigen/tiling"
)

// WorkerRequest is one job as swigen tune hands it to a worker process,
// with how to time it: one line of ServeRunner's protocol (Encode), which
// the worker decodes (DecodeRequest), measures (Measure) and answers with
// an Output line. A worker that dies, hangs or loses its CUDA context
// costs only its own job.
type WorkerRequest struct {
	Job Job `json:"job"`
	// Reps is the number of timed repetitions (at least 1).
	Reps int `json:"reps"`
	// Warmup is the warm-up time per timed variant.
	Warmup time.Duration `json:"warmup_ns"`
	// SyncTimeout bounds each wait for the GPU.
	SyncTimeout time.Duration `json:"sync_timeout_ns"`
	// NVCC is the compiler the parent built the candidate with, so the
	// worker's build is a cache hit; "" searches as usual.
	NVCC string `json:"nvcc,omitempty"`
}

// Encode is r as one command-line argument.
func (r WorkerRequest) Encode() (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("tune: encode the request for %s: %w", r.Job.Name(), err)
	}
	return string(b), nil
}

// DecodeRequest parses and checks a request made by Encode.
func DecodeRequest(s string) (WorkerRequest, error) {
	var r WorkerRequest
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("tune: worker request: %w", err)
	}
	if _, err := tiling.Check(r.Job.Config); err != nil {
		return r, fmt.Errorf("tune: worker request: %w", err)
	}
	var errs []error
	if r.Job.Shape.M < 1 || r.Job.Shape.K < 1 || r.Job.Shape.I < 1 {
		errs = append(errs, fmt.Errorf("shape %+v: every size must be at least 1", r.Job.Shape))
	}
	if ps := (Key{Kernel: r.Job.Config.Kernel, Experts: r.Job.Experts, Routing: r.Job.Routing}).groupedProblems(); len(ps) > 0 {
		errs = append(errs, errors.New(strings.Join(ps, "; ")))
	}
	if r.Reps < 1 {
		errs = append(errs, fmt.Errorf("reps %d: must be at least 1", r.Reps))
	}
	if r.Warmup < 0 || r.SyncTimeout <= 0 {
		errs = append(errs, fmt.Errorf("warmup %v, sync timeout %v: want warmup >= 0 and a positive timeout", r.Warmup, r.SyncTimeout))
	}
	if err := errors.Join(errs...); err != nil {
		return r, fmt.Errorf("tune: worker request for %s: %w", r.Job.Name(), err)
	}
	return r, nil
}

// WorkerLoop is a worker's life: one request per line of In, one JSON
// Output line per request on Out, a log line per job on Log.
type WorkerLoop struct {
	Device int
	In     io.Reader
	Out    io.Writer
	Log    io.Writer
	// Job measures one request line; every failure is the job's Output.
	Job func(line string) Output
	// Exit ends the process after a fault or a timeout, whose CUDA
	// context may be lost or whose kernel may still hang: tearing it
	// down could block, and the answer is written.
	Exit func(code int)
}

// Serve answers every request of In until it ends, or until a job faults
// or times out (then Exit(0)).
func (w WorkerLoop) Serve() error {
	sc := bufio.NewScanner(w.In)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		start := time.Now()
		out := w.Job(sc.Text())
		out.WallS = time.Since(start).Seconds()
		b, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("tune-worker: encode result: %w", err)
		}
		if _, err := w.Out.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("tune-worker: write result: %w", err)
		}
		fmt.Fprintln(w.Log, WorkerLogLine(w.Device, out))
		if out.Status == StatusFault || out.Status == StatusTimeout {
			w.Exit(0)
			return nil // reached only where a test replaces Exit
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("tune-worker: read requests: %w", err)
	}
	return nil
}

// WorkerLogLine is a worker's log line for one job: the config, device,
// status and time, the error, where the time went and the wall time.
func WorkerLogLine(device int, out Output) string {
	msg := fmt.Sprintf("tune-worker: %s on device %d: %s", out.Config, device, out.Status)
	if out.Status == StatusOK || out.Status == StatusSlow {
		msg += fmt.Sprintf(" %.1f us", out.US)
	}
	if out.Error != "" {
		msg += ": " + out.Error
	}
	var ph []string
	for _, p := range out.Phases {
		ph = append(ph, fmt.Sprintf("%s %.2fs", p.Name, p.S))
	}
	if len(ph) > 0 {
		msg += " [" + strings.Join(ph, ", ") + "]"
	}
	return fmt.Sprintf("%s (%.2fs)", msg, out.WallS)
}

// ResultsFD is the file descriptor a worker writes its answers to
// (ServeRunner's protocol): stdout and stderr stay free for the log,
// whatever a library prints there.
const ResultsFD = 3

// ResultsPipe is the worker's ResultsFD, which must be the pipe
// ServeRunner made: run by hand, fd 3 is whatever opened first (a driver
// device file, say), and the answers must not go there (an *InputError).
// It is marked close-on-exec, so the compilers a worker runs do not hold
// it open after a crash.
func ResultsPipe() (*os.File, error) {
	f := os.NewFile(ResultsFD, "tune-results")
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return nil, &InputError{Err: errors.New("tune-worker: file descriptor 3 is not a results pipe (tune-worker is run by swigen tune only)")}
	}
	syscall.CloseOnExec(ResultsFD)
	return f, nil
}
