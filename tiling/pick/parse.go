package pick

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// ParseKernels parses --kernel values (each may be a comma list),
// dropping repeats.
func ParseKernels(vals []string) ([]tiling.Kernel, error) {
	var ks []tiling.Kernel
	for _, v := range vals {
		k, err := tiling.ParseKernel(strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		names := make([]string, 0, len(tiling.Kernels()))
		for _, k := range tiling.Kernels() {
			names = append(names, string(k))
		}
		return nil, fmt.Errorf("--kernel: no kernel given (want one or more of %s)", strings.Join(names, ", "))
	}
	return Uniq(ks), nil
}

// ParseArches parses --arch values (each may be a comma list already
// split by pflag), dropping repeats but keeping the user's order.
func ParseArches(vals []string) ([]tiling.Arch, error) {
	var out []tiling.Arch
	for _, v := range vals {
		a, err := tiling.ParseArch(v)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--arch: no target given")
	}
	return out, nil
}

// FilterConfigs keeps the configs of cfgs whose kernel, arch and dtype
// are in ks, arches and ds (an empty list keeps every value).
func FilterConfigs(cfgs []tiling.Config, ks []tiling.Kernel, arches []tiling.Arch, ds []tiling.DType) []tiling.Config {
	var out []tiling.Config
	for _, c := range cfgs {
		if (len(ks) == 0 || slices.Contains(ks, c.Kernel)) &&
			(len(arches) == 0 || slices.Contains(arches, c.Arch)) &&
			(len(ds) == 0 || slices.Contains(ds, c.DType)) {
			out = append(out, c)
		}
	}
	return out
}

// Uniq is xs without repeats, in first-seen order.
func Uniq[T comparable](xs []T) []T {
	var out []T
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
