package tiling

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/internal/join"
)

// Arches returns the compilation targets.
func Arches() []Arch { return []Arch{ArchSM90a, ArchSM100a} }

// Schedules returns every schedule of every arch.
func Schedules() []Schedule {
	return []Schedule{Cooperative, PingPong, Overlap, OneCTA, TwoCTA}
}

// SchedulesFor returns the schedules legal on arch a (nil if a is unknown).
func SchedulesFor(a Arch) []Schedule {
	switch a {
	case ArchSM90a:
		return []Schedule{Cooperative, PingPong, Overlap}
	case ArchSM100a:
		return []Schedule{OneCTA, TwoCTA}
	}
	return nil
}

// Schedulers returns the tile schedulers.
func Schedulers() []Scheduler {
	return []Scheduler{StaticScheduler, CLCScheduler, StreamKScheduler, GroupedScheduler}
}

// Rasters returns the raster orders.
func Rasters() []Raster { return []Raster{RasterM, RasterN} }

// Majors returns the operand majors.
func Majors() []Major { return []Major{KMajor, MNMajor} }

// SwizzleGroups returns the legal swizzle group sizes.
func SwizzleGroups() []int { return []int{1, 2, 4, 8, 16} }

// Token returns the arch as it appears in names: "sm90a", "sm100a".
func (a Arch) Token() string { return strings.ReplaceAll(string(a), "_", "") }

func parseEnum[T ~string](what, s string, valid []T) (T, error) {
	for _, v := range valid {
		if strings.EqualFold(s, string(v)) {
			return v, nil
		}
	}
	return "", fmt.Errorf("tiling: parse %s %q: must be one of %s", what, s, join.Strings(valid))
}

// ParseKernel parses a kernel kind ("bwd_dswiglu", "fwd_gateup",
// "fwd_down", "gemm").
func ParseKernel(s string) (Kernel, error) { return parseEnum("kernel", s, AllKernels()) }

// ParseArch parses a target. "sm_90a", "sm90a" and "90a" all mean
// ArchSM90a; likewise for sm_100a.
func ParseArch(s string) (Arch, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(strings.TrimPrefix(t, "sm_"), "sm")
	for _, a := range Arches() {
		if t != "" && "sm_"+t == string(a) {
			return a, nil
		}
	}
	return "", fmt.Errorf("tiling: parse arch %q: must be one of %s (also accepted: sm90a, 90a, sm100a, 100a)", s, join.Strings(Arches()))
}

// ParseDType parses an operand type ("bf16", "fp16").
func ParseDType(s string) (DType, error) { return parseEnum("dtype", s, DTypes()) }

// ParseSchedule parses a schedule ("cooperative", "pingpong", "1cta",
// "2cta"). Whether it suits the arch is Validate's business.
func ParseSchedule(s string) (Schedule, error) { return parseEnum("schedule", s, Schedules()) }

// ParseScheduler parses a tile scheduler ("static", "clc", "streamk").
func ParseScheduler(s string) (Scheduler, error) {
	return parseEnum("scheduler", s, Schedulers())
}

// ParseRaster parses a raster order ("m", "n").
func ParseRaster(s string) (Raster, error) { return parseEnum("raster", s, Rasters()) }

// ParseMajor parses an operand major ("k", "mn").
func ParseMajor(s string) (Major, error) { return parseEnum("major", s, Majors()) }

// maxDim bounds every parsed size: kernels index with 32-bit integers.
const maxDim = 1<<31 - 1

// parseDim parses a positive decimal integer of at most maxDim. Only ASCII
// digits are accepted (no sign, no spaces).
func parseDim(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty; must be a positive integer")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("must be a positive integer")
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > maxDim {
		return 0, fmt.Errorf("must be a positive integer <= %d", maxDim)
	}
	if n == 0 {
		return 0, fmt.Errorf("must be a positive integer")
	}
	return int(n), nil
}

func parseDims(what, s string, n int, form string) ([]int, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "x")
	if len(parts) != n {
		return nil, fmt.Errorf("tiling: parse %s %q: want %d sizes separated by 'x' like %s", what, s, n, form)
	}
	out := make([]int, n)
	for i, p := range parts {
		v, err := parseDim(p)
		if err != nil {
			return nil, fmt.Errorf("tiling: parse %s %q: size %q: %w", what, s, p, err)
		}
		out[i] = v
	}
	return out, nil
}

// ParseTile parses a tile "MxNxK" such as "128x128x64". Legality of the
// sizes is Validate's business.
func ParseTile(s string) (m, n, k int, err error) {
	v, err := parseTileFlag("tile", s)
	if err != nil {
		return 0, 0, 0, err
	}
	return v[0], v[1], v[2], nil
}

// ParseCluster parses a cluster shape "MxN" such as "2x1".
func ParseCluster(s string) (m, n int, err error) {
	v, err := parseClusterFlag("cluster", s)
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}
