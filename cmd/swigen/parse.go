package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// parseArches parses --arch values (each may be a comma list already split
// by pflag), dropping repeats but keeping the user's order.
// parseKernels parses --kernel values (each may be a comma list), dropping
// repeats.
func parseKernels(vals []string) ([]tiling.Kernel, error) {
	var ks []tiling.Kernel
	for _, v := range vals {
		k, err := tiling.ParseKernel(strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	return uniq(ks), nil
}

func parseArches(vals []string) ([]tiling.Arch, error) {
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

// parseDims2 parses "MxN" (the epilogue sub-tile) into two positive sizes.
func parseDims2(what, s string) ([2]int, error) {
	ms, ns, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	var v [2]int
	for i, p := range []string{ms, ns} {
		n, err := strconv.Atoi(p)
		if !ok || err != nil || n <= 0 {
			return [2]int{}, fmt.Errorf("--%s %q: want two positive sizes MxN like 64x64", what, s)
		}
		v[i] = n
	}
	return v, nil
}

func filterConfigs(cfgs []tiling.Config, ks []tiling.Kernel, arches []tiling.Arch, ds []tiling.DType) []tiling.Config {
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

func uniq[T comparable](xs []T) []T {
	var out []T
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
