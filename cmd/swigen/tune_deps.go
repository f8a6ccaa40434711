package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/tune"
	"github.com/swigen/swigen/tiling"
)

// tuneGPU is what the parent needs to know about the GPU; it creates no
// CUDA context, so the children have the GPU to themselves.
type tuneGPU struct {
	Name   string
	Driver int
	Arch   tiling.Arch
	CC     string
	// SMs is the multiprocessor count, which sizes the prune model's
	// waves (0: unknown, nothing is pruned).
	SMs int
}

// tuneDeps are the parts of runTune that touch the machine, replaced in
// tests.
type tuneDeps struct {
	probe     func(devices []int) (tuneGPU, error)
	toolchain func(nvcc string) (*toolchain.Toolchain, error)
	prepare   func(tc *toolchain.Toolchain) func(context.Context, tiling.Config) error
	runner    func(o *tuneOptions, tc *toolchain.Toolchain, log io.Writer) (tune.Runner, error)
	now       func() time.Time
}

func defaultTuneDeps() tuneDeps {
	return tuneDeps{
		probe: probeGPU,
		toolchain: func(nvcc string) (*toolchain.Toolchain, error) {
			return toolchain.Find(toolchain.FindOptions{NVCC: nvcc})
		},
		prepare: compileCandidate,
		runner:  serveRunner,
		now:     time.Now,
	}
}

func probeGPU(devices []int) (tuneGPU, error) {
	var g tuneGPU
	if err := cu.Init(); err != nil {
		return g, fmt.Errorf("tune: %w (swigen tune needs an NVIDIA driver and GPU)", err)
	}
	n, err := cu.DeviceCount()
	if err != nil {
		return g, fmt.Errorf("tune: %w", err)
	}
	for i, d := range devices {
		if d < 0 || d >= n {
			return g, usageError(fmt.Errorf("tune: --devices %d: this machine has %d GPUs (0..%d)", d, n, n-1))
		}
		dev, err := cu.GetDevice(d)
		if err != nil {
			return g, err
		}
		name, err := dev.Name()
		if err != nil {
			return g, err
		}
		major, minor, err := dev.ComputeCapability()
		if err != nil {
			return g, err
		}
		if i == 0 {
			if g.SMs, err = dev.Attribute(cu.AttrMultiprocessorCount); err != nil {
				return g, err
			}
			g.Name, g.CC = name, fmt.Sprintf("sm_%d%d", major, minor)
			switch major {
			case 9:
				g.Arch = tiling.ArchSM90a
			case 10:
				g.Arch = tiling.ArchSM100a
			default:
				return g, fmt.Errorf("tune: %s has compute capability %d.%d: swigen kernels need 9.0 (sm_90a) or 10.0 (sm_100a)", name, major, minor)
			}
		} else if name != g.Name {
			// Results are keyed by one GPU name; mixed GPUs would record
			// one's times under the other's key.
			return g, usageError(fmt.Errorf("tune: --devices mixes %s (device %d) and %s (device %d); tune one kind at a time", g.Name, devices[0], name, d))
		}
	}
	if g.Driver, err = cu.DriverVersion(); err != nil {
		return g, err
	}
	return g, nil
}

// compileCandidate renders and compiles a config exactly as the worker's
// check.BuildAndLoad does, so the worker's build is a cache hit.
func compileCandidate(tc *toolchain.Toolchain) func(context.Context, tiling.Config) error {
	return func(ctx context.Context, c tiling.Config) error {
		k, err := tiling.Check(c)
		if err != nil {
			return err
		}
		art, err := gen.Render(k)
		if err != nil {
			return err
		}
		cctx, cancel := compileCtx(ctx)
		defer cancel()
		_, err = tc.Compile(cctx, art.Name, art.Source, toolchain.CompileOptions{Arch: string(c.Arch)})
		return err
	}
}

// serveRunner runs one long-lived `swigen tune-worker` per device, which
// measures every job of the tune in one CUDA context.
func serveRunner(o *tuneOptions, tc *toolchain.Toolchain, log io.Writer) (tune.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("tune: find own executable for the workers: %w", err)
	}
	nvcc := ""
	if tc != nil {
		nvcc = tc.NVCC
	}
	r := &tune.ServeRunner{
		Path:    exe,
		Args:    func(device int) []string { return workerArgs(device, nvcc) },
		Encode:  func(j tune.Job) (string, error) { return workerRequest(o, nvcc, j).Encode() },
		Timeout: o.Timeout,
	}
	if o.Verbose {
		r.Log = log
	}
	return r, nil
}

// workerArgs is the command line of the worker that serves device.
func workerArgs(device int, nvcc string) []string {
	args := []string{"tune-worker", "--device", strconv.Itoa(device)}
	if nvcc != "" {
		args = append(args, "--nvcc", nvcc)
	}
	return args
}

// workerRequest is one job and its timing as the worker takes it; a
// screening job's own reps and warm-up replace the flags'.
func workerRequest(o *tuneOptions, nvcc string, j tune.Job) tune.WorkerRequest {
	req := tune.WorkerRequest{Job: j, Reps: o.Reps, Warmup: o.Warmup, SyncTimeout: o.SyncTimeout, NVCC: nvcc}
	if j.Reps > 0 {
		req.Reps = j.Reps
	}
	if j.Warmup > 0 {
		req.Warmup = j.Warmup
	}
	return req
}
