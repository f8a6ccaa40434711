package bench

import (
	"slices"

	"fmt"

	"github.com/swigen/swigen/tiling"
)

// ParseKind is the kind bench bwd/gateup times, from the positional words
// args (none, "bwd" or "gateup") and --kernel (kernel, when kernelSet):
// bwd_dswiglu by default, fwd_gateup for gateup (timed against cuBLAS +
// the SwiGLU elementwise kernel). --kernel may name either kind, or the
// positional one; other kinds have their own commands. Every error is
// bad input.
func ParseKind(args []string, kernel string, kernelSet bool) (tiling.Kernel, error) {
	benched := tiling.BenchedKinds() // the first is the default
	kind := benched[0]
	if kernelSet {
		kind = tiling.Kernel(kernel)
	}
	if len(args) > 1 {
		return "", fmt.Errorf("bench: %d kinds given: want one of bwd or gateup", len(args))
	}
	if len(args) == 1 {
		i := slices.IndexFunc(benched, func(k tiling.Kernel) bool { return KindArg(k) == args[0] })
		if i < 0 {
			return "", fmt.Errorf("bench %q: want bwd or gateup, or the mlp or gemm subcommand", args[0])
		}
		if kernelSet && kind != benched[i] {
			return "", fmt.Errorf("bench %s: --kernel %s names another kind", args[0], kernel)
		}
		kind = benched[i]
	}
	if !slices.Contains(benched, kind) {
		return "", fmt.Errorf("bench: --kernel %s: bench times bwd_dswiglu (bench bwd) and fwd_gateup (bench gateup); gemm has bench gemm", kernel)
	}
	return kind, nil
}

// KindArg is the positional word that names kind k (the registry's
// Benched): gateup or bwd.
func KindArg(k tiling.Kernel) string {
	if s, ok := tiling.KindOf(k); ok && s.Benched != "" {
		return s.Benched
	}
	return "bwd"
}

// CheckKind rejects config c when it is not of kind, the kind the run
// times; the error is bad input.
func CheckKind(kind tiling.Kernel, c tiling.Config) error {
	if c.Kernel != kind {
		return fmt.Errorf("bench %s: config %s is a %s kernel (bench bwd times bwd_dswiglu, bench gateup fwd_gateup)",
			KindArg(kind), c.Name(), c.Kernel)
	}
	return nil
}
