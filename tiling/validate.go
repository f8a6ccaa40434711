package tiling

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/swigen/swigen/internal/join"
)

// Problem is one violated rule: the offending field (snake_case, as in
// flags and names), its value, and the rule it breaks.
type Problem struct {
	Field string
	Value string
	Rule  string
}

// String formats the problem as "field=value: rule".
func (p Problem) String() string {
	v := p.Value
	if v == "" {
		v = `""`
	}
	return p.Field + "=" + v + ": " + p.Rule
}

// ValidationError lists every rule a Config breaks.
type ValidationError struct {
	Problems []Problem
}

// Error joins the problems, one per line.
func (e *ValidationError) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = p.String()
	}
	return strings.Join(s, "\n")
}

// Fields returns the offending field of each problem, in order.
func (e *ValidationError) Fields() []string {
	f := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		f[i] = p.Field
	}
	return f
}

type checker struct{ probs []Problem }

func (ch *checker) add(field string, value any, format string, args ...any) {
	ch.probs = append(ch.probs, Problem{Field: field, Value: fmt.Sprint(value), Rule: fmt.Sprintf(format, args...)})
}

// kSwizzleAtomBytes is the row of the 128-byte swizzle the operand maps use
// along K (Limits.SwizzleBytes on every arch; a constant here so the K rule
// is checked when the arch is not).
const kSwizzleAtomBytes = 128

// Validate checks c against the hardware limits and swigen's kernel design
// and returns nil or a *ValidationError listing every violated rule. Rules
// that depend on a field that is itself invalid (e.g. tile rules when the
// arch is unknown) are skipped rather than reported twice.
func (c Config) Validate() error {
	var ch checker

	kernelOK := slices.Contains(AllKernels(), c.Kernel)
	if !kernelOK {
		ch.add("kernel", c.Kernel, "must be one of %s", join.Strings(AllKernels()))
	}
	lim, archErr := LimitsFor(c.Arch)
	archOK := archErr == nil
	if !archOK {
		ch.add("arch", c.Arch, "must be one of %s", join.Strings(Arches()))
	}
	dtypeOK := slices.Contains(DTypes(), c.DType)
	if !dtypeOK {
		ch.add("dtype", c.DType, "must be one of %s", join.Strings(DTypes()))
	}
	schedOK := false
	switch {
	case !slices.Contains(Schedules(), c.Schedule):
		ch.add("schedule", c.Schedule, "must be one of %s", join.Strings(Schedules()))
	case archOK && !slices.Contains(SchedulesFor(c.Arch), c.Schedule):
		ch.add("schedule", c.Schedule, "not available on %s (want one of %s)", c.Arch, join.Strings(SchedulesFor(c.Arch)))
	default:
		schedOK = archOK
	}
	switch {
	case !slices.Contains(Schedulers(), c.Scheduler):
		ch.add("scheduler", c.Scheduler, "must be one of %s", join.Strings(Schedulers()))
	case c.Scheduler == CLCScheduler && archOK && c.Arch != ArchSM100a:
		ch.add("scheduler", c.Scheduler, "cluster launch control exists on sm_100a only")
	case kernelOK && (c.Scheduler == GroupedScheduler) != c.Kernel.Grouped():
		ch.add("scheduler", c.Scheduler, "the grouped scheduler is the one scheduler of the grouped kinds (%s), and theirs only", Words(GroupedKernels()))
	}
	if !slices.Contains(Rasters(), c.Raster) {
		ch.add("raster", c.Raster, "must be one of %s", join.Strings(Rasters()))
	}
	if !slices.Contains(SwizzleGroups(), c.SwizzleGroup) {
		ch.add("swizzle_group", c.SwizzleGroup, "must be one of %s", join.Ints(SwizzleGroups()))
	}
	switch {
	case !slices.Contains(Majors(), c.MajorA):
		ch.add("major_a", c.MajorA, "must be one of %s", join.Strings(Majors()))
	case kernelOK && !spec(c.Kernel).MajorA && c.MajorA != KMajor:
		ch.add("major_a", c.MajorA, "must be k for %s (the activation operand is [M,K] row-major)", c.Kernel)
	}
	if !slices.Contains(Majors(), c.MajorB) {
		ch.add("major_b", c.MajorB, "must be one of %s", join.Strings(Majors()))
	}
	if c.StoreOut && kernelOK && !spec(c.Kernel).StoreOut {
		ch.add("store_out", c.StoreOut, "only %s have a second output to store (the recomputed out, or de for training)",
			join.Strings(kindsWith(func(s KindSpec) bool { return s.StoreOut })))
	}
	if c.SliceFrags != 0 {
		switch {
		case c.Schedule != Overlap:
			ch.add("slice_frags", c.SliceFrags, "only the overlap schedule runs its epilogue in slices; leave it 0")
		case c.SliceFrags == DefaultSliceFrags:
			ch.add("slice_frags", c.SliceFrags, "is the default; leave it 0 (no _sf suffix)")
		case c.SliceFrags != 1 && c.SliceFrags != 2 && c.SliceFrags != 8 && c.SliceFrags != 16:
			ch.add("slice_frags", c.SliceFrags, "must divide the 16 fragments of a 64x64 sub-tile: 1, 2, 4 (default), 8 or 16")
		}
	}
	if c.CLCStages != 0 {
		switch {
		case c.Scheduler != CLCScheduler:
			ch.add("clc_stages", c.CLCStages, "only the clc scheduler has a response ring; leave it 0")
		case c.CLCStages == DefaultCLCStages:
			ch.add("clc_stages", c.CLCStages, "is the default (accumulator stages + 1); leave it 0 (no number after _clc)")
		case c.CLCStages < 2 || c.CLCStages > maxCLCStages:
			// One slot makes the scheduler wait for the slowest role (the
			// epilogue) before each request.
			ch.add("clc_stages", c.CLCStages, "must be in [2,%d] (a ring of one serializes each CLC request behind the last tile's epilogue)", maxCLCStages)
		}
	}
	if c.FastSigmoid && kernelOK && !spec(c.Kernel).FastSigmoid {
		ch.add("fast_sigmoid", c.FastSigmoid, "only bwd_dswiglu has the tanh sigmoid")
	}
	if c.EpiPipe && kernelOK && !spec(c.Kernel).EpiPipe {
		ch.add("epi_pipe", c.EpiPipe, "only bwd_dswiglu has the pipelined epilogue")
	}
	if c.Score && kernelOK && !spec(c.Kernel).Score {
		ch.add("score", c.Score, "only %s take a router score (a per-row weight of the grouped kinds)",
			join.Strings(kindsWith(func(s KindSpec) bool { return s.Score })))
	}
	if c.Residual && kernelOK && !spec(c.Kernel).Residual {
		ch.add("residual", c.Residual, "only fwd_down adds a residual")
	}

	// 128-byte swizzle atom along K: TileK elements must fill whole atoms.
	// An unknown dtype (reported above) is sized as the default's.
	elem := c.DType.Size()
	if elem == 0 {
		elem = DefaultDType.Size()
	}
	atomK := kSwizzleAtomBytes / elem
	sizesOK := true
	// The upper bound keeps the byte arithmetic far from overflow; at 512 no
	// two stages of even the smallest tile fit in shared memory anyway.
	if c.TileK <= 0 || c.TileK%atomK != 0 || c.TileK > 256 {
		sizesOK = false
		ch.add("tile_k", c.TileK, "must be a multiple of %d in [%d,256] (%d-byte swizzle atom along K for %d-bit types)",
			atomK, atomK, kSwizzleAtomBytes, 8*elem)
	}
	if c.Stages < minStages || c.Stages > maxStages {
		sizesOK = false
		ch.add("stages", c.Stages, "must be in [%d,%d]", minStages, maxStages)
	}
	if c.EpiStages < minEpiStages || c.EpiStages > maxEpiStages {
		sizesOK = false
		ch.add("epi_stages", c.EpiStages, "must be in [%d,%d]", minEpiStages, maxEpiStages)
	}
	clusterOK := true
	for _, d := range []struct {
		f string
		v int
	}{{"cluster_m", c.ClusterM}, {"cluster_n", c.ClusterN}} {
		if d.v != 1 && d.v != 2 {
			ch.add(d.f, d.v, "must be 1 or 2")
			clusterOK = false
		}
	}
	if clusterOK && c.ClusterM*c.ClusterN > 2 {
		ch.add("cluster", strconv.Itoa(c.ClusterM)+"x"+strconv.Itoa(c.ClusterN),
			"at most 2 CTAs per cluster (one operand is multicast to a CTA pair)")
	}

	shapeOK := true
	if archOK && schedOK && dtypeOK {
		shapeOK = c.validateShape(&ch, lim)
	}

	// The shared-memory total means something only once every size in it
	// is legal; otherwise it would repeat those problems in another form.
	if archOK && kernelOK && dtypeOK && schedOK && shapeOK && sizesOK {
		if s := c.Smem(); s.Total > lim.SmemPerBlock {
			ch.add("smem_bytes", s.Total, "%d bytes of shared memory (operands %d + epilogue %d + barriers %d + alignment %d) exceed the %d-byte per-block limit of %s",
				s.Total, s.Operands, s.Epilogue, s.Barriers, s.Align, lim.SmemPerBlock, c.Arch)
		}
	}

	if len(ch.probs) == 0 {
		return nil
	}
	return &ValidationError{Problems: ch.probs}
}

// validateShape checks the tile and epilogue shapes of a config whose
// arch, schedule and dtype are valid. It reports whether the shapes are
// sane enough for the shared-memory model to mean anything.
func (c Config) validateShape(ch *checker, lim Limits) bool {
	n0 := len(ch.probs)
	mma, _ := lim.MMAFor(c.DType, c.CTAsPerTile())
	rows := c.RowsPerConsumer()
	switch c.Arch {
	case ArchSM90a:
		switch c.Schedule {
		case Cooperative:
			if c.TileM != 128 && c.TileM != 256 {
				ch.add("tile_m", c.TileM, "must be 128 or 256 for cooperative (each consumer warpgroup takes TileM/2 rows, a multiple of the wgmma M=64)")
			}
		case PingPong:
			if c.TileM != 64 && c.TileM != 128 {
				ch.add("tile_m", c.TileM, "must be 64 or 128 for pingpong (each consumer warpgroup takes a whole tile, a multiple of the wgmma M=64)")
			}
		case Overlap:
			if c.TileM != 128 {
				ch.add("tile_m", c.TileM, "must be 128 for overlap (each consumer warpgroup takes 64 rows, one wgmma M)")
			}
		}
		if !mma.LegalN(c.TileN) {
			ch.add("tile_n", c.TileN, "must be a multiple of %d in [%d,%d] (wgmma N)", mma.NStep, mma.NMin, mma.NMax)
		}
		if c.EpiM != 64 {
			ch.add("epi_m", c.EpiM, "must be 64 on sm_90a (one wgmma M of rows)")
		}
		if c.EpiN != 32 && c.EpiN != 64 {
			ch.add("epi_n", c.EpiN, "must be 32 or 64 on sm_90a (one 64- or 128-byte swizzle row wide)")
		}
		if len(ch.probs) == n0 {
			budget := lim.AccBudget(c.Schedule)
			if acc := c.AccRegsPerThread(); acc > budget {
				ch.add("tile_n", c.TileN, "needs %d fp32 accumulator registers per thread (%d rows per consumer warpgroup x %d / 128), over the %d-register budget of %s; use tile_n <= %d",
					acc, rows, c.TileN, budget, c.Schedule, budget*128/rows)
			}
		}
	case ArchSM100a:
		switch c.Schedule {
		case OneCTA:
			if !mma.LegalM(c.TileM) {
				ch.add("tile_m", c.TileM, "must be one of %s for 1cta (tcgen05 cta_group::1 M)", join.Ints(mma.M))
			}
		case TwoCTA:
			if c.TileM != 256 {
				ch.add("tile_m", c.TileM, "must be 256 for 2cta (tcgen05 cta_group::2 M=256 over a CTA pair)")
			}
			if c.ClusterM != 2 || c.ClusterN != 1 {
				ch.add("cluster", strconv.Itoa(c.ClusterM)+"x"+strconv.Itoa(c.ClusterN), "must be 2x1 for 2cta (the CTA pair of cta_group::2)")
			}
		}
		if !mma.LegalN(c.TileN) {
			ch.add("tile_n", c.TileN, "must be a multiple of %d in [%d,%d] (tcgen05 N)", mma.NStep, mma.NMin, mma.NMax)
		} else if cols := c.TMEMColumns(); cols > lim.TMEMColumns {
			ch.add("tile_n", c.TileN, "needs %d TMEM columns (2 accumulator buffers), over the %d available", cols, lim.TMEMColumns)
		}
		if c.EpiM != rows && len(ch.probs) == n0 {
			ch.add("epi_m", c.EpiM, "must be %d on sm_100a (the rows per CTA: one TMEM lane per row)", rows)
		}
		if c.EpiN != 32 && c.EpiN != 64 {
			ch.add("epi_n", c.EpiN, "must be 32 or 64 on sm_100a")
		}
	}
	if len(ch.probs) != n0 {
		return false
	}
	switch {
	case c.Arch == ArchSM90a && c.TileN < c.EpiN:
		ch.add("tile_n", c.TileN, "must be at least epi_n=%d (one whole sub-tile)", c.EpiN)
	case c.Arch != ArchSM90a && c.TileN%c.EpiN != 0:
		// sm_90a's last sub-tile may overlap the one before it (its
		// accumulator columns are all in registers); sm_100a streams
		// whole sub-tiles out of TMEM.
		ch.add("tile_n", c.TileN, "must be a multiple of epi_n=%d (the epilogue streams whole sub-tiles)", c.EpiN)
	}
	if rows%c.EpiM != 0 {
		ch.add("tile_m", c.TileM, "must give rows per consumer (%d) a multiple of epi_m=%d", rows, c.EpiM)
	}
	// An MN-major operand has its swizzle atom along M or N: the per-CTA
	// tile extent in that dimension must fill whole 128-byte atoms.
	atom := lim.SwizzleBytes / c.DType.Size()
	if c.MajorA == MNMajor && c.TileMPerCTA()%atom != 0 {
		ch.add("tile_m", c.TileM, "with major_a=mn the A tile rows per CTA (%d) must be a multiple of %d (128-byte swizzle atom along M)", c.TileMPerCTA(), atom)
	}
	if c.MajorB == MNMajor && c.TileNPerCTA()%atom != 0 {
		ch.add("tile_n", c.TileN, "with major_b=mn the B tile columns per CTA (%d) must be a multiple of %d (128-byte swizzle atom along N)", c.TileNPerCTA(), atom)
	}
	return len(ch.probs) == n0
}
