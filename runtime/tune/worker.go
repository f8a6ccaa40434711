package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
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
	if err := r.Job.Config.Validate(); err != nil {
		return r, fmt.Errorf("tune: worker request: config %s: %w", r.Job.Config.Name(), err)
	}
	var errs []error
	if r.Job.Shape.M < 1 || r.Job.Shape.K < 1 || r.Job.Shape.I < 1 {
		errs = append(errs, fmt.Errorf("shape %+v: every size must be at least 1", r.Job.Shape))
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
