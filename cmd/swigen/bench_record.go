package main

import (
	"fmt"
	"time"

	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/lab/mlp"
)

// gitRevision is set with -ldflags "-X main.gitRevision=..." by
// bench/build.sh, for binaries built outside a VCS-stamped build.
var gitRevision string

// writeMLPJSON writes bench mlp's record of led (mlp.StepRecord) into
// --json's directory and returns its path.
func writeMLPJSON(o *benchMLPOptions, gpu string, driver int, arch string, led *mlp.Ledger, checks []mlp.CheckResult, now time.Time) (string, error) {
	h := bench.Header{Arch: arch, GPU: gpu, Driver: driver, Revision: bench.Revision(gitRevision), Command: o.Command}
	name, err := mlp.WriteStepRecord(o.JSONDir, h, led, checks, now)
	if err != nil {
		return "", fmt.Errorf("bench mlp: %w", err)
	}
	return name, nil
}
