package tune

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

// TestWorkerRequestRoundTrip: what the parent encodes is what the worker
// decodes, probe included.
func TestWorkerRequestRoundTrip(t *testing.T) {
	t.Parallel()
	cfg := testCands(4)[3]
	want := WorkerRequest{
		Job: Job{Index: 7, Config: cfg, Probe: "hang", Shape: tiling.Shape{M: 100, K: 64, I: 72}, Device: 3,
			BestUS: 251.25, SlowFactor: 3, Ceilings: Ceilings{GemmTFLOPs: 780.5, CopyGBs: 4255}},
		Reps: 25, Warmup: 150 * time.Millisecond, SyncTimeout: 7 * time.Second, NVCC: "/opt/nvcc",
	}
	s, err := want.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequest(s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestDecodeRequestRejects(t *testing.T) {
	t.Parallel()
	good := WorkerRequest{Job: Job{Config: testCands(1)[0], Shape: tiling.Shape{M: 1, K: 8, I: 8}}, Reps: 1, SyncTimeout: time.Second}
	for _, tt := range []struct {
		name, part string
		mut        func(*WorkerRequest)
	}{
		{"reps", "reps 0", func(r *WorkerRequest) { r.Reps = 0 }},
		{"shape", "every size must be at least 1", func(r *WorkerRequest) { r.Job.Shape.K = 0 }},
		{"timeout", "positive timeout", func(r *WorkerRequest) { r.SyncTimeout = 0 }},
		{"config", "config", func(r *WorkerRequest) { r.Job.Config.Stages = 0 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			tt.mut(&r)
			s, err := r.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeRequest(s); err == nil || !strings.Contains(err.Error(), tt.part) {
				t.Errorf("DecodeRequest = %v, want an error containing %q", err, tt.part)
			}
		})
	}
	if _, err := DecodeRequest("{"); err == nil {
		t.Error("DecodeRequest accepted broken JSON")
	}
}
