package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

func TestWorkerRequest(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"tune-worker", "--device", "3", "--nvcc", "/opt/nvcc"}, WorkerArgs(3, "/opt/nvcc")); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tune-worker", "--device", "0"}, WorkerArgs(0, "")); diff != "" {
		t.Errorf("args without nvcc (-want +got):\n%s", diff)
	}
	tm := WorkerTiming{Reps: 25, Warmup: 150 * time.Millisecond, SyncTimeout: 7 * time.Second, NVCC: "/opt/nvcc"}
	j := Job{Config: testCands(1)[0], Shape: tiling.Shape{M: 100, K: 64, I: 72}, Device: 3}
	scr := j
	scr.Reps, scr.Warmup = ScreenReps, ScreenWarmup
	tests := []struct {
		job  Job
		want WorkerRequest
	}{
		{j, WorkerRequest{Job: j, Reps: 25, Warmup: 150 * time.Millisecond, SyncTimeout: 7 * time.Second, NVCC: "/opt/nvcc"}},
		{scr, WorkerRequest{Job: scr, Reps: ScreenReps, Warmup: ScreenWarmup, SyncTimeout: 7 * time.Second, NVCC: "/opt/nvcc"}},
	}
	for _, tt := range tests {
		line, err := tm.Request(tt.job).Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRequest(line)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("request (-want +got):\n%s", diff)
		}
	}
}

// TestWorkerJob: what a worker answers without measuring: a request it
// cannot decode, one for another device, and any job when its GPU did
// not open.
func TestWorkerJob(t *testing.T) {
	t.Parallel()
	good, err := WorkerTiming{Reps: 20, Warmup: time.Millisecond, SyncTimeout: time.Second}.
		Request(Job{Config: testCands(1)[0], Shape: tiling.Shape{M: 64, K: 64, I: 64}, Device: 1}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		w    Worker
		line string
		want Status
		msg  string
	}{
		{"bad request", Worker{Device: 1}, "{", StatusFault, "tune-worker: tune: worker request"},
		{"other device", Worker{Device: 2}, good, StatusFault, "job for device 1 sent to the worker of device 2"},
		{"no GPU", Worker{Device: 1, OpenErr: errors.New("cuInit: CUDA_ERROR_NO_DEVICE")}, good, StatusFault, "device 1: cuInit: CUDA_ERROR_NO_DEVICE"},
		{"no env", *NewWorker(1, nil, nil, 7), good, StatusFault, "device 1: no measurement environment"},
	}
	for _, tt := range tests {
		out := tt.w.Job(context.Background(), tt.line)
		if out.Status != tt.want || !strings.Contains(out.Error, tt.msg) || out.Device != tt.w.Device {
			t.Errorf("%s: %+v, want %s with %q", tt.name, out.Result, tt.want, tt.msg)
		}
	}
}

// TestFiles: merge counts what it read and wrote; a missing input, to
// merge, table or Tuned, is an *InputError.
func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := sampleDB().WriteFile(a); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	st, err := MergeFiles([]string{a, a}, out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(MergeStats{Inputs: 2, InRecords: 10, Keys: 2, Records: 5}, st); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	missing := filepath.Join(dir, "missing.json")
	_, err1 := MergeFiles([]string{a, missing}, out)
	_, err2 := TableFiles([]string{missing}, nil, "")
	_, _, err3 := Tuned(missing, testCands(1)[0], testKey().Shape, false, testKey().Templates)
	_, err4 := TableFiles([]string{a}, []string{missing}, "")
	for i, err := range []error{err1, err2, err3, err4} {
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("case %d: %v, want an *InputError", i, err)
		}
	}
}

// TestWriteMeasured: the table goes to stdout without out, else to out
// (and nothing to stdout).
func TestWriteMeasured(t *testing.T) {
	t.Parallel()
	tb := &tiling.MeasuredTable{}
	want, err := tb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	if err := WriteMeasured(tb, "", &stdout); err != nil || stdout.String() != string(want) {
		t.Errorf("to stdout: %v, %q", err, stdout.String())
	}
	stdout.Reset()
	out := filepath.Join(t.TempDir(), "m.json")
	if err := WriteMeasured(tb, out, &stdout); err != nil || stdout.Len() != 0 {
		t.Errorf("to a file: %v, stdout %q", err, stdout.String())
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != string(want) {
		t.Errorf("file: %v, %q", err, got)
	}
}
