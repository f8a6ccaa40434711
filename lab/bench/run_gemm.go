package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/swigen/swigen/runtime/launch"
	"github.com/swigen/swigen/tiling"
)

// GemmRun says what RunGemm times and how it builds.
type GemmRun struct {
	Options
	// Shapes are gemm sizes M, N, K.
	Shapes [][3]int
	// Configs are timed at every shape; none times the heuristic gemm
	// config of Arch and DType at each.
	Configs []tiling.Config
	Arch    tiling.Arch
	DType   tiling.DType
	// MajorA and MajorB are the heuristic config's operand majors (""
	// is K-major): the measured gemm winners are per majors.
	MajorA, MajorB tiling.Major
	// Build builds and loads a gemm config's kernel.
	Build func(ctx context.Context, cfg tiling.Config) (*launch.Kernel, error)
	// Ceilings measures the ceilings of DType; nil is MeasureCeilings.
	Ceilings func(dt tiling.DType) (Ceilings, error)
	Out      io.Writer
}

// RunGemm is bench gemm: the ceilings, then each config at each shape
// against cuBLAS (BenchGemm), each report printed as it comes. A config
// that is not a gemm config of Arch is an InputError.
func RunGemm(ctx context.Context, env *Env, o GemmRun) error {
	if o.Build == nil {
		return fmt.Errorf("bench: gemm run: no Build function")
	}
	if o.Ceilings == nil {
		o.Ceilings = func(dt tiling.DType) (Ceilings, error) { return MeasureCeilings(env, dt, o.Options) }
	}
	ceil, err := o.Ceilings(o.DType)
	if err != nil {
		return err
	}
	WriteCeilings(o.Out, o.DType, ceil)
	for _, sh := range o.Shapes {
		M, N, K := sh[0], sh[1], sh[2]
		cfgs := o.Configs
		if len(cfgs) == 0 {
			c, _, err := tiling.HeuristicGemm(o.Arch, o.DType, tiling.Shape{M: M, K: K, I: N}, o.MajorA, o.MajorB)
			if err != nil {
				return err
			}
			cfgs = append(cfgs, c)
		}
		for _, cfg := range cfgs {
			if cfg.Kernel != tiling.PlainGEMM() || cfg.Arch != o.Arch {
				return &InputError{Err: fmt.Errorf("bench gemm: %s is not a %s gemm config", cfg.Name(), o.Arch)}
			}
			k, err := o.Build(ctx, cfg)
			if err != nil {
				return err
			}
			r, err := BenchGemm(env, k, M, N, K, ceil, o.Options)
			k.Close()
			if r != nil {
				r.Write(o.Out)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
