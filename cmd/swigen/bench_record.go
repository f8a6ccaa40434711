package main

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/bench"
	"github.com/swigen/swigen/runtime/mlp"
	"github.com/swigen/swigen/tiling"
)

// gitRevision is set with -ldflags "-X main.gitRevision=..." by
// bench/build.sh, for binaries built outside a VCS-stamped build.
var gitRevision string

func revision() string {
	if gitRevision != "" {
		return gitRevision
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}

// writeBenchJSON writes bench's record of cfg at r's shape
// (bench.Record) into --json's directory.
func writeBenchJSON(o *benchOptions, s *gpuSession, cfg tiling.Config, r *bench.BwdReport, pr bench.PlanOutcome) error {
	now := time.Now().UTC()
	h := bench.Header{Kernel: string(cfg.Kernel), Arch: string(cfg.Arch), DType: string(cfg.DType), Shape: r.Shape,
		Config: cfg.Name(), Probe: o.Probe, GPU: s.name, Driver: s.driver, Revision: revision(), Date: now.Format(time.RFC3339),
		Command: o.Command}
	b, err := bench.MarshalRecord(bench.NewRecord(h, r, pr))
	if err != nil {
		return err
	}
	_, err = bench.WriteRecord(o.JSONDir, bench.RecordName(now, manifest.ProbedName(cfg, o.Probe), r.Shape), b)
	return err
}

// writeMLPJSON writes bench mlp's record of led (mlp.StepRecord) into
// --json's directory and returns its path.
func writeMLPJSON(o *benchMLPOptions, gpu string, driver int, arch string, led *mlp.Ledger, checks []mlp.CheckResult, now time.Time) (string, error) {
	h := bench.Header{Arch: arch, GPU: gpu, Driver: driver, Revision: revision(), Date: now.Format(time.RFC3339), Command: o.Command}
	b, err := bench.MarshalRecord(mlp.NewStepRecord(h, led, checks))
	if err != nil {
		return "", fmt.Errorf("bench mlp: encode record: %w", err)
	}
	name, err := bench.WriteRecord(o.JSONDir, mlp.StepRecordName(now, arch, led), b)
	if err != nil {
		return "", fmt.Errorf("bench mlp: %w", err)
	}
	return name, nil
}
