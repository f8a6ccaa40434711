package main

import (
	"strings"
	"testing"
)

// TestDoctorRuns runs the real doctor: whatever is missing here, it
// reports and exits 0.
func TestDoctorRuns(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "doctor", "--no-build", "--nvcc", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	for _, w := range []string{"Compiler", "Driver", "GPUs", "Targets", "sm_90a", "sm_100a"} {
		if !strings.Contains(out, w) {
			t.Errorf("doctor output lacks %q:\n%s", w, out)
		}
	}
}
