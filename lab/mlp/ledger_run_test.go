package mlp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/tiling"
)

// TestWriteChecks: each check's verdict, mode, segments and outputs.
func TestWriteChecks(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	WriteChecks(&out, tiling.BF16, true, []CheckResult{{
		Shape: tiling.Shape{M: 200, K: 136, I: 264}, Mode: "swigen", Pass: false,
		Used:    []string{"baseline", "baseline", "swigen bwd_x", "baseline", "baseline", "baseline"},
		Outputs: []OutputCheck{{Name: "out (recomputed by the backward)"}},
	}})
	for _, w := range []string{"M=200,K=136,I=264 swigen step", "FAIL", "out recomputed by the backward", "bwd dout+dSwiGLU=swigen bwd_x"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

// TestWriteStepRecord: the record lands under StepRecordName, dated now,
// and reads back into NewStepRecord's value; a directory that cannot be
// made is an error.
func TestWriteStepRecord(t *testing.T) {
	t.Parallel()
	led := sampleLedger(true)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h := bench.Header{Arch: "sm_90a", GPU: "NVIDIA H200", Driver: 13000, Revision: "abc", Command: "swigen bench mlp"}
	dir := t.TempDir()
	name, err := WriteStepRecord(dir, h, led, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, StepRecordName(now, "sm_90a", led)); name != want {
		t.Errorf("path %s, want %s", name, want)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var got StepRecord
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	h.Date = "2026-12-01T10:00:00Z"
	want := NewStepRecord(h, led, nil)
	// JSON has no Inf; the record already maps them to -1.
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteStepRecord(filepath.Join(f, "sub"), h, led, nil, now); err == nil {
		t.Error("WriteStepRecord under a file: no error")
	}
}
