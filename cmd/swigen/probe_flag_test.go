package main

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// TestProbeFlag: an unknown --probe is a usage error before any GPU is
// opened, and a probe that cannot instrument a selected config is one too.
func TestProbeFlag(t *testing.T) {
	t.Parallel()
	v := &verifyOptions{Select: pick.Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Shape: seedShape}, Tol: 1, Timeout: 1, Repeat: 1, Probe: "nosuch"}
	if _, err := v.validate(); err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), "want one of hang, nomma, noepi, trace") {
		t.Errorf("verify --probe nosuch: %v (exit %d), want a usage error listing the probes", err, exitCode(err))
	}
	b := &benchOptions{Select: pick.Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Shape: seedShape}, Shapes: []string{"128,64,128"}, Probe: "nosuch"}
	if _, err := b.validate(); err == nil || exitCode(err) != exitUsage {
		t.Errorf("bench --probe nosuch: %v (exit %d), want a usage error", err, exitCode(err))
	}
	gemm, err := tiling.ParseName("gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkProbe("noepi", []tiling.Config{gemm}); err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), gemm.Name()) {
		t.Errorf("noepi on gemm: %v, want a usage error naming the config", err)
	}
	if err := checkProbe("trace", []tiling.Config{gemm}); err != nil {
		t.Errorf("trace on gemm: %v", err)
	}
	if err := checkProbe("", []tiling.Config{gemm}); err != nil {
		t.Errorf("no probe: %v", err)
	}
}

// TestProbeChecksBeforeGPU: a probe that cannot instrument a named config,
// or a probe with --model, is a usage error without any GPU.
func TestProbeChecksBeforeGPU(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"verify", "--probe", "trace", "--name", "gemm_sm100a_bf16_m128n256k64_s4_c1x1_1cta", "--nvcc", "/nonexistent/nvcc"},
		{"bench", "bwd", "--probe", "noepi", "--name", "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong", "--nvcc", "/nonexistent/nvcc"},
		{"bench", "bwd", "--model", "b200", "--probe", "trace"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d:\n%s", args, code, exitUsage, errOut)
		}
	}
}
