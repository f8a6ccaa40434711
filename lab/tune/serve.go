package tune

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// ServeRunner measures jobs in long-lived worker processes, one per
// device, so the fixed cost of a worker (process start, CUDA context,
// cuBLAS, the baseline's kernels, the ceilings) is paid once per worker
// instead of once per candidate. The protocol: the worker reads one
// request per line on its stdin (Encode's output) and writes one Output
// per line, as JSON, on its file descriptor 3; it exits at the end of its
// stdin. A worker that outlives Timeout on a job is killed with its whole
// process group and the job recorded as StatusTimeout; one that exits
// without answering is StatusFault with the tail of its stderr. Either
// way the next job on that device starts a fresh worker, and so does a
// job after a fault or timeout the worker reported itself (its CUDA
// context may be dead; such a worker exits on its own after answering).
type ServeRunner struct {
	Path string
	// Args is the worker command line for a device.
	Args func(device int) []string
	// Encode is a job's request line (without the newline).
	Encode  func(j Job) (string, error)
	Env     []string      // added to the parent's environment
	Timeout time.Duration // per job; 0 means no limit
	// Log, when set, receives the workers' stderr as they run.
	Log io.Writer

	mu      sync.Mutex
	workers map[int]*served
	starts  int
}

// maxAnswer bounds one answer line.
const maxAnswer = 16 << 20

// exitGrace is how long an answer may still arrive after its worker
// exited (the reader drains the pipe after the process is gone).
const exitGrace = 200 * time.Millisecond

// served is one running worker.
type served struct {
	cmd     *exec.Cmd
	kill    context.CancelFunc // kills the process group
	stdin   io.WriteCloser
	results chan []byte   // answer lines; closed at the worker's EOF
	exited  chan struct{} // closed once Wait returned
	waitErr error
	readErr error // the answers' reader's error (an answer too long, say)
	tail    *tailWriter
}

// Starts is how many worker processes the runner has started.
func (r *ServeRunner) Starts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts
}

// worker returns the device's running worker, starting one if there is
// none.
func (r *ServeRunner) worker(device int) (*served, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w := r.workers[device]; w != nil {
		select {
		case <-w.exited:
			delete(r.workers, device)
		default:
			return w, nil
		}
	}
	w, err := r.start(device)
	if err != nil {
		return nil, err
	}
	if r.workers == nil {
		r.workers = map[int]*served{}
	}
	r.workers[device] = w
	r.starts++
	return w, nil
}

func (r *ServeRunner) start(device int) (*served, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("tune: worker for device %d: results pipe: %w", device, err)
	}
	lctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(lctx, r.Path, r.Args(device)...)
	isolate(cmd)
	cmd.WaitDelay = 2 * time.Second
	if len(r.Env) > 0 {
		cmd.Env = append(os.Environ(), r.Env...)
	}
	cmd.ExtraFiles = []*os.File{pw} // the worker's fd 3
	w := &served{cmd: cmd, kill: kill, results: make(chan []byte, 1), exited: make(chan struct{}), tail: &tailWriter{max: stderrTail}}
	var out io.Writer = w.tail
	if r.Log != nil {
		out = io.MultiWriter(w.tail, r.Log)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		kill()
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("tune: worker for device %d: %w", device, err)
	}
	if err := cmd.Start(); err != nil {
		kill()
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("tune: start worker for device %d: %w", device, err)
	}
	pw.Close() // the worker holds the write end now
	go func() {
		defer pr.Close()
		defer close(w.results)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), maxAnswer)
		for sc.Scan() {
			w.results <- append([]byte(nil), sc.Bytes()...)
		}
		w.readErr = sc.Err() // read after results is closed
	}()
	go func() {
		w.waitErr = cmd.Wait()
		kill()
		close(w.exited)
	}()
	return w, nil
}

// drop stops the device's worker w (if it is still the device's) and
// waits for it to exit.
func (r *ServeRunner) drop(device int, w *served) {
	r.mu.Lock()
	if r.workers[device] == w {
		delete(r.workers, device)
	}
	r.mu.Unlock()
	w.kill()
	<-w.exited
}

// Run implements Runner.
func (r *ServeRunner) Run(ctx context.Context, j Job) (Output, error) {
	start := time.Now()
	res, err := r.run(ctx, j)
	if err != nil {
		return Output{}, err
	}
	res.Config = j.Name()
	res.Device = j.Device
	res.WallS = time.Since(start).Seconds()
	return res, nil
}

func (r *ServeRunner) run(ctx context.Context, j Job) (Output, error) {
	fault := func(format string, a ...any) Output {
		return Output{Result: Result{Status: StatusFault, Error: fmt.Sprintf(format, a...)}}
	}
	line, err := r.Encode(j)
	if err != nil {
		return fault("%v", err), nil
	}
	w, err := r.worker(j.Device)
	if err != nil {
		return fault("%v", err), nil
	}
	w.tail.reset()
	if _, err := io.WriteString(w.stdin, line+"\n"); err != nil {
		r.drop(j.Device, w)
		return fault("%s", joinMsg(fmt.Sprintf("worker gone before the job was sent (%v)", err), w.tail.String())), nil
	}
	var timeout <-chan time.Time
	if r.Timeout > 0 {
		t := time.NewTimer(r.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	// gone is the fault of a worker that ended without answering; drained
	// says its answers' pipe was seen closed, so readErr is set.
	gone := func(drained bool) Output {
		r.drop(j.Device, w)
		why := "worker exited without a result"
		if w.waitErr != nil {
			why = fmt.Sprintf("worker failed (%v) without a result", w.waitErr)
		}
		if drained && w.readErr != nil {
			why += fmt.Sprintf(" (reading its answer: %v)", w.readErr)
		}
		return fault("%s", joinMsg(why, w.tail.String()))
	}
	var b []byte
	select {
	case line, ok := <-w.results:
		if !ok {
			select {
			case <-w.exited:
			case <-timeout:
			case <-ctx.Done():
			}
			return gone(true), nil
		}
		b = line
	case <-w.exited:
		// The worker is gone; a descendant holding the pipe open must not
		// turn its crash into a timeout. An answer it wrote first still
		// counts.
		select {
		case line, ok := <-w.results:
			if !ok {
				return gone(true), nil
			}
			b = line
		case <-time.After(exitGrace):
			return gone(false), nil
		}
	case <-timeout:
		r.drop(j.Device, w)
		return Output{Result: Result{Status: StatusTimeout,
			Error: joinMsg(fmt.Sprintf("no result within %v; worker process group killed", r.Timeout), w.tail.String())}}, nil
	case <-ctx.Done():
		r.drop(j.Device, w)
		return Output{}, fmt.Errorf("tune: %s: %w", j.Name(), ctx.Err())
	}
	var o Output
	if err := json.Unmarshal(b, &o); err != nil || o.Status == "" {
		r.drop(j.Device, w)
		if err == nil {
			err = errors.New("no status")
		}
		return fault("%s", joinMsg(fmt.Sprintf("worker result unreadable (%v)", err), w.tail.String())), nil
	}
	if o.Status == StatusFault || o.Status == StatusTimeout {
		// The worker's context may be dead: it exits by itself, and the
		// next job gets a fresh one.
		r.drop(j.Device, w)
	}
	return o, nil
}

// Close ends every worker: each gets the end of its stdin and exits; those
// still running grace after Close began are killed with their process
// groups.
func (r *ServeRunner) Close(grace time.Duration) {
	r.mu.Lock()
	ws := r.workers
	r.workers = nil
	r.mu.Unlock()
	for _, w := range ws {
		w.stdin.Close()
	}
	deadline := time.After(grace)
	for _, w := range ws {
		select {
		case <-w.exited:
		case <-deadline:
			w.kill()
			<-w.exited
		}
	}
}
