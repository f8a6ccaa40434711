package tune

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestWorkerLoop: one Output line per request and one log line per job;
// a fault ends the worker (Exit) before the next request is read.
func TestWorkerLoop(t *testing.T) {
	t.Parallel()
	var out, log bytes.Buffer
	exited := -1
	w := WorkerLoop{Device: 3, In: strings.NewReader("a\nfault\nnever\n"), Out: &out, Log: &log,
		Job: func(line string) Output {
			if line == "fault" {
				return Output{Result: Result{Config: line, Status: StatusFault, Error: "boom"}}
			}
			return Output{Result: Result{Config: line, Status: StatusOK, US: 12.5}, Phases: []Phase{{"bench", 1.5}}}
		},
		Exit: func(code int) { exited = code },
	}
	if err := w.Serve(); err != nil {
		t.Fatal(err)
	}
	if exited != 0 {
		t.Errorf("Exit(%d) after a fault, want Exit(0)", exited)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var o Output
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		got = append(got, o.Config+" "+string(o.Status))
	}
	if strings.Join(got, ", ") != "a ok, fault fault" {
		t.Errorf("answers %q, want a then the fault and nothing after", got)
	}
	logs := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(logs) != 2 || !strings.HasPrefix(logs[0], "tune-worker: a on device 3: ok 12.5 us [bench 1.50s] (") ||
		!strings.HasPrefix(logs[1], "tune-worker: fault on device 3: fault: boom (") {
		t.Errorf("log:\n%s", log.String())
	}
}
