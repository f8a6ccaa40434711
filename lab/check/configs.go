package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// RunOptions tune VerifyConfigs.
type RunOptions struct {
	Options
	// Probe builds every config with the probe of this name ("" for the
	// product kernel). A probed kernel's unfused path is not checked.
	Probe string
	// Fused and Unfused say which paths to check: the fused kernel, and
	// for kinds that have one (tiling.HasUnfused) its unfused path.
	Fused, Unfused bool
	// BuildTimeout bounds one compile, so a wedged compiler cannot stall
	// a run; 0 means no bound.
	BuildTimeout time.Duration
	// Out gets a line per config that fails to build or load and, unless
	// Quiet, each shape's verdict line (Verdict); Log gets a line per
	// kernel built. Nil discards.
	Out, Log io.Writer
	Quiet    bool
}

// NoUnfusedPathError is VerifyConfigs' error when only the unfused path
// is asked for and a config's kind has none (bad input).
type NoUnfusedPathError struct{ Config string }

// Error names the config and the flag.
func (e *NoUnfusedPathError) Error() string {
	return fmt.Sprintf("verify: --path unfused: %s has no unfused path", e.Config)
}

// VerifyConfigs builds, loads and checks every config on every shape on
// the paths o asks for, and returns every shape's Record and how many
// checks failed. A launch that hangs or a lost CUDA context ends the run
// (every later call in the context would fail) with an error; the
// records so far come back with it.
func VerifyConfigs(ctx context.Context, env *Env, arch tiling.Arch, cfgs []tiling.Config, shapes []tiling.Shape, o RunOptions) ([]Record, int, error) {
	out, log := orDiscard(o.Out), orDiscard(o.Log)
	unf := newUnfusedChecker(env, arch, o.BuildTimeout)
	defer unf.Close()
	failed := 0
	var all []Record
	for ci, cfg := range cfgs {
		name := manifest.ProbedName(cfg, o.Probe)
		res, err := verifyConfig(ctx, env, unf, cfg, shapes, o, log)
		if err != nil {
			var nu *NoUnfusedPathError
			if errors.As(err, &nu) {
				return all, failed, err
			}
			failed++
			fmt.Fprintf(out, "FAIL %s: build/load: %v\n", name, err)
			all = append(all, Record{Config: name, Error: err.Error()})
			continue
		}
		for _, lr := range res {
			r := lr.ShapeResult
			if !r.Pass {
				failed++
			}
			line, j := Verdict(name, lr.path, r)
			all = append(all, j)
			if !o.Quiet {
				fmt.Fprintln(out, line)
			}
			var te *cu.TimeoutError
			if errors.As(r.Err, &te) {
				return all, failed, fmt.Errorf("verify: %w", r.Err)
			}
			if cu.ContextLost(r.Err) {
				// Every later call in this context fails with the same
				// sticky error: say so instead of failing the rest.
				return all, failed, fmt.Errorf("verify: %s %s: %w; the CUDA context is lost, so %d later config(s) did not run (verify them in a new process)",
					name, tiling.ShapeDims(cfg.Kernel, r.Shape), r.Err, len(cfgs)-ci-1)
			}
		}
	}
	return all, failed, nil
}

// pathResult is one shape's verdict for a config's path ("": fused).
type pathResult struct {
	path string
	ShapeResult
}

// verifyConfig builds and loads cfg and checks it on every shape on the
// paths o asks for. Its error is the build's or load's, or a
// NoUnfusedPathError.
func verifyConfig(ctx context.Context, env *Env, unf *unfusedChecker, cfg tiling.Config, shapes []tiling.Shape, o RunOptions, log io.Writer) ([]pathResult, error) {
	cctx, cancel := withTimeout(ctx, o.BuildTimeout)
	k, br, err := BuildAndLoadProbe(cctx, env, cfg, o.Probe)
	cancel()
	if err != nil {
		return nil, err
	}
	defer k.Close()
	name := manifest.ProbedName(cfg, o.Probe)
	if u := br.Usage; u.Registers > 0 {
		fmt.Fprintf(log, "built %s: %d regs, %d B spill, %d B stack, %d B dynamic smem\n", name, u.Registers, u.SpillStores, u.StackFrame, k.Man.DynamicSmemBytes)
	}
	var res []pathResult
	if o.Fused {
		for _, r := range Verify(env, k, shapes, o.Options) {
			res = append(res, pathResult{"", r})
		}
	}
	if o.Unfused && tiling.HasUnfused(cfg.Kernel) && o.Probe == "" {
		for _, r := range unf.verify(ctx, k, shapes, o.Options) {
			res = append(res, pathResult{"unfused", r})
		}
	} else if !o.Fused {
		return nil, &NoUnfusedPathError{Config: name}
	}
	return res, nil
}

// withTimeout is ctx bounded by d, or ctx as is when d is 0.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
