package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swigen/swigen/gen/toolchain"
)

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

// checkDevice is the rule for every command's --device: a GPU ordinal is
// not negative (checked before any GPU is opened).
func checkDevice(cmd string, device int) error {
	if device < 0 {
		return usageError(fmt.Errorf("%s: --device %d: want a GPU ordinal, 0 or more", cmd, device))
	}
	return nil
}

// checkNVCC is the rule for every command's --nvcc (when given): an
// executable file, or a directory holding nvcc, checked before any GPU
// or compile step (a device or FIFO is not run).
func checkNVCC(cmd, nvcc string) error {
	if nvcc == "" {
		return nil
	}
	if err := toolchain.CheckNVCCPath(nvcc); err != nil {
		return usageError(fmt.Errorf("%s: --nvcc %q: %w", cmd, nvcc, err))
	}
	return nil
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
