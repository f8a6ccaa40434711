package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
	if len(ks) == 0 {
		names := make([]string, 0, len(tiling.Kernels()))
		for _, k := range tiling.Kernels() {
			names = append(names, string(k))
		}
		return nil, fmt.Errorf("--kernel: no kernel given (want one or more of %s)", strings.Join(names, ", "))
	}
	return uniq(ks), nil
}

// minReps is the fewest timed repetitions a benchmark takes (bench.Options
// would raise fewer to it silently).
const minReps = 20

// checkTiming is the rule for every command's --reps and --warmup: at
// least minReps repetitions and a warm-up that is not negative, checked
// before any GPU is opened.
func checkTiming(cmd string, reps int, warmup time.Duration) error {
	var bad []string
	if reps < minReps {
		bad = append(bad, fmt.Sprintf("--reps %d: want at least %d", reps, minReps))
	}
	if warmup < 0 {
		bad = append(bad, fmt.Sprintf("--warmup %v: must not be negative", warmup))
	}
	if len(bad) > 0 {
		return usageError(fmt.Errorf("%s: %s", cmd, strings.Join(bad, "; ")))
	}
	return nil
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

// checkWritableFile checks, before any long work, that a file can be
// written at path ("" is no file): its directory exists and takes a new
// file (tried and removed), and path is not a directory.
func checkWritableFile(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory, want a file path", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".swigen-write-check-*")
	if err != nil {
		return fmt.Errorf("%s cannot be written: %w", path, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// plural is "1 kernel", "2 kernels".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
