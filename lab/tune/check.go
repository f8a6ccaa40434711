package tune

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/swigen/swigen/tiling"
)

// elementwiseOf is kind k's elementwise kernel (tiling.KindSpec).
func elementwiseOf(k tiling.Kernel) string {
	s, _ := tiling.KindOf(k)
	return s.Elementwise
}

// storeOutKinds are the tunable kinds with a second output.
func storeOutKinds() []tiling.Kernel {
	var ks []tiling.Kernel
	for _, k := range tiling.TunableKinds() {
		if s, _ := tiling.KindOf(k); s.StoreOut {
			ks = append(ks, k)
		}
	}
	return ks
}

// CheckKernel fails, as an *InputError, for a kind that cannot be
// measured, or StoreOut for a kind without a second output.
func CheckKernel(k tiling.Kernel, storeOut bool) error {
	if !Measurable(k) {
		return &InputError{Err: fmt.Errorf("tune: --kernel %s: only %s can be measured so far", k, tiling.Words(tiling.TunableKinds()))}
	}
	if s, _ := tiling.KindOf(k); storeOut && !s.StoreOut {
		return &InputError{Err: fmt.Errorf("tune: --store-out with --kernel %s: only the kinds with a second output (%s) store one", k, tiling.Words(storeOutKinds()))}
	}
	return nil
}

// CheckLimits fails, as an *InputError, on devices, Max, SlowFactor or
// ScreenKeep that no tune can run with. The workers would reject what
// passes here (DecodeRequest): every candidate would be a fault.
func (o *RunOptions) CheckLimits() error {
	if len(o.Devices) == 0 {
		return &InputError{Err: errors.New("tune: --devices: no GPU given")}
	}
	for i, dev := range o.Devices {
		if dev < 0 {
			return &InputError{Err: fmt.Errorf("tune: --devices %d: a GPU ordinal is 0 or more", dev)}
		}
		if slices.Contains(o.Devices[:i], dev) {
			return &InputError{Err: fmt.Errorf("tune: --devices lists %d twice", dev)}
		}
	}
	if o.Max < 0 {
		return &InputError{Err: fmt.Errorf("tune: --max %d: must not be negative", o.Max)}
	}
	if o.SlowFactor != 0 && !(o.SlowFactor > 1 && !math.IsInf(o.SlowFactor, 0)) {
		return &InputError{Err: fmt.Errorf("tune: --slow-factor %g: must be above 1 and finite (or 0 to disable)", o.SlowFactor)}
	}
	if o.ScreenKeep < 0 {
		return &InputError{Err: fmt.Errorf("tune: --screen-keep %d: must not be negative", o.ScreenKeep)}
	}
	return nil
}

// CheckSelection fails, as a *SelectionError, when Filter, Max and the
// shard leave no candidate in the space of any of arches (those the tune
// could run on), before any GPU is probed.
func (o *RunOptions) CheckSelection(arches []tiling.Arch) error {
	for _, a := range arches {
		space := tiling.Space(o.Kernel, a, o.DType)
		if o.StoreOut {
			space = tiling.SpaceStoreOut(o.Kernel, a, o.DType)
		}
		if c, err := Select(space, Selection{Filter: o.Filter, Max: o.Max, Shard: o.Shard, Shards: o.Shards}); err == nil && len(c) > 0 {
			return nil
		}
	}
	return &SelectionError{Err: fmt.Errorf("tune: no candidate left of the %s space after --filter %q --max %d --shard %s (swigen list --space shows the names)", o.Kernel, o.Filter, o.Max, o.ShardFlag)}
}

// TargetArches are the arches a tune with the --arch flag arch can run
// on: every one for "auto", else the one it names.
func TargetArches(arch string) ([]tiling.Arch, error) {
	if arch == "auto" {
		return tiling.Arches(), nil
	}
	a, err := tiling.ParseArch(arch)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("tune: --arch: %w", err)}
	}
	return []tiling.Arch{a}, nil
}

// CheckArch fails, as an *InputError, when the --arch flag arch names
// another target than g's: tuning needs the target's GPU.
func (g GPU) CheckArch(arch string) error {
	if arch == "auto" {
		return nil
	}
	a, err := tiling.ParseArch(arch)
	if err != nil {
		return &InputError{Err: fmt.Errorf("tune: %w", err)}
	}
	if a != g.Arch {
		return &InputError{Err: fmt.Errorf("tune: --arch %s: the GPU (%s, %s) runs %s kernels; tuning needs the target's GPU", a, g.Name, g.CC, g.Arch)}
	}
	return nil
}
