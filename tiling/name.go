package tiling

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swigen/swigen/internal/join"
)

// Defaults of the fields that Name leaves out when they hold them.
const (
	DefaultRaster       = RasterM
	DefaultSwizzleGroup = 8
	DefaultScheduler    = StaticScheduler
	DefaultMajor        = KMajor
	DefaultEpiStages    = 2
)

// DefaultEpilogue returns the default epilogue sub-tile of arch a for
// schedule s and tile M: sm_90a 64x64 (one wgmma M by one swizzle atom);
// sm_100a the rows per CTA (one TMEM lane each) by 64; both 2 deep.
// Unknown archs get 0, 0, 0.
func DefaultEpilogue(a Arch, s Schedule, tileM int) (epiM, epiN, epiStages int) {
	switch a {
	case ArchSM90a:
		return 64, 64, DefaultEpiStages
	case ArchSM100a:
		c := Config{Arch: a, Schedule: s, TileM: tileM}
		return c.TileMPerCTA(), 64, DefaultEpiStages
	}
	return 0, 0, 0
}

// WithDefaults returns c with every zero-valued optional field set to its
// default: scheduler static, raster m, swizzle group 8, cluster 1x1,
// majors k, and the arch's default epilogue (which needs Arch, Schedule
// and TileM). Fields already set are kept.
func (c Config) WithDefaults() Config {
	if c.Scheduler == "" {
		c.Scheduler = DefaultScheduler
	}
	if c.Raster == "" {
		c.Raster = DefaultRaster
	}
	if c.SwizzleGroup == 0 {
		c.SwizzleGroup = DefaultSwizzleGroup
	}
	if c.ClusterM == 0 {
		c.ClusterM = 1
	}
	if c.ClusterN == 0 {
		c.ClusterN = 1
	}
	if c.MajorA == "" {
		c.MajorA = DefaultMajor
	}
	if c.MajorB == "" {
		c.MajorB = DefaultMajor
	}
	m, n, s := DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
	if c.EpiM == 0 {
		c.EpiM = m
	}
	if c.EpiN == 0 {
		c.EpiN = n
	}
	if c.EpiStages == 0 {
		c.EpiStages = s
	}
	return c
}

// Name returns the procedural name of c, e.g.
// bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong. The remaining
// fields add a suffix only when they differ from their default, in this
// order: _rn (raster n), _g{N} (swizzle group), _e{EpiM}x{EpiN}s{EpiStages}
// (non-default epilogue), _amn (MajorA mn), _bmn (MajorB mn), _out
// (StoreOut), _res (Residual), _tanh (FastSigmoid), _sf{N} (SliceFrags), _l2k
// (L2KeepOperands), _clc (CLC scheduler; _clc{N} with CLCStages N).
//
// The name of a valid config is a C identifier and a file name; it is the
// cubin entry point, the cache key prefix and the golden file stem.
// ParseName inverts it.
func (c Config) Name() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s_%s_%s_m%dn%dk%d_s%d_c%dx%d_%s",
		c.Kernel, c.Arch.Token(), c.DType, c.TileM, c.TileN, c.TileK,
		c.Stages, c.ClusterM, c.ClusterN, c.Schedule)
	if c.Raster == RasterN {
		b.WriteString("_rn")
	}
	if c.SwizzleGroup != DefaultSwizzleGroup {
		fmt.Fprintf(&b, "_g%d", c.SwizzleGroup)
	}
	if m, n, s := DefaultEpilogue(c.Arch, c.Schedule, c.TileM); c.EpiM != m || c.EpiN != n || c.EpiStages != s {
		fmt.Fprintf(&b, "_e%dx%ds%d", c.EpiM, c.EpiN, c.EpiStages)
	}
	if c.MajorA == MNMajor {
		b.WriteString("_amn")
	}
	if c.MajorB == MNMajor {
		b.WriteString("_bmn")
	}
	if c.StoreOut {
		b.WriteString("_out")
	}
	if c.Residual {
		b.WriteString("_res")
	}
	if c.FastSigmoid {
		b.WriteString("_tanh")
	}
	if c.SliceFrags != 0 {
		fmt.Fprintf(&b, "_sf%d", c.SliceFrags)
	}
	if c.L2KeepOperands {
		b.WriteString("_l2k")
	}
	if c.Scheduler == CLCScheduler {
		b.WriteString("_clc")
		if c.CLCStages != 0 {
			b.WriteString(strconv.Itoa(c.CLCStages))
		}
	}
	return b.String()
}

// String returns Name.
func (c Config) String() string { return c.Name() }

// ParseName inverts Name: ParseName(c.Name()) == c for every valid c. It
// accepts only canonical names (known enum tokens, decimal numbers without
// leading zeros, suffixes only for non-default values and in Name's
// order), so Name(ParseName(s)) == s whenever it succeeds. It checks
// syntax only: call Validate on the result.
func ParseName(s string) (Config, error) {
	c, err := parseName(s)
	if err != nil {
		return Config{}, fmt.Errorf("tiling: parse name %q: %w", s, err)
	}
	return c, nil
}

func parseName(s string) (Config, error) {
	var c Config
	rest := ""
	for _, k := range Kernels() {
		if r, ok := strings.CutPrefix(s, string(k)+"_"); ok {
			c.Kernel, rest = k, r
			break
		}
	}
	if c.Kernel == "" {
		return c, fmt.Errorf("must start with a kernel kind (%s)", join.Strings(Kernels()))
	}
	tok := strings.Split(rest, "_")
	if len(tok) < 6 {
		return c, fmt.Errorf("want kernel_arch_dtype_m{M}n{N}k{K}_s{S}_c{M}x{N}_schedule[_suffixes]")
	}
	for _, a := range Arches() {
		if tok[0] == a.Token() {
			c.Arch = a
		}
	}
	if c.Arch == "" {
		return c, fmt.Errorf("arch token %q: must be one of sm90a, sm100a", tok[0])
	}
	for _, d := range DTypes() {
		if tok[1] == string(d) {
			c.DType = d
		}
	}
	if c.DType == "" {
		return c, fmt.Errorf("dtype token %q: must be one of %s", tok[1], join.Strings(DTypes()))
	}
	v, err := scanNums(tok[2], "m", "n", "k")
	if err != nil {
		return c, fmt.Errorf("tile token %q: %w", tok[2], err)
	}
	c.TileM, c.TileN, c.TileK = v[0], v[1], v[2]
	if v, err = scanNums(tok[3], "s"); err != nil {
		return c, fmt.Errorf("stages token %q: %w", tok[3], err)
	}
	c.Stages = v[0]
	if v, err = scanNums(tok[4], "c", "x"); err != nil {
		return c, fmt.Errorf("cluster token %q: %w", tok[4], err)
	}
	c.ClusterM, c.ClusterN = v[0], v[1]
	for _, sc := range Schedules() {
		if tok[5] == string(sc) {
			c.Schedule = sc
		}
	}
	if c.Schedule == "" {
		return c, fmt.Errorf("schedule token %q: must be one of %s", tok[5], join.Strings(Schedules()))
	}

	c.Raster, c.SwizzleGroup, c.Scheduler = DefaultRaster, DefaultSwizzleGroup, DefaultScheduler
	c.MajorA, c.MajorB = DefaultMajor, DefaultMajor
	c.EpiM, c.EpiN, c.EpiStages = DefaultEpilogue(c.Arch, c.Schedule, c.TileM)

	// Suffixes, each at most once and in this order.
	const (
		sufRN = iota
		sufG
		sufE
		sufAMN
		sufBMN
		sufOut
		sufRes
		sufTanh
		sufSF
		sufL2K
		sufCLC
	)
	next := 0
	for _, t := range tok[6:] {
		var at int
		switch {
		case t == "rn":
			at = sufRN
			c.Raster = RasterN
		case strings.HasPrefix(t, "g"):
			at = sufG
			v, err := scanDefaultless(t, "g", "swizzle group", DefaultSwizzleGroup)
			if err != nil {
				return c, err
			}
			c.SwizzleGroup = v
		case strings.HasPrefix(t, "e"):
			at = sufE
			v, err := scanNums(t, "e", "x", "s")
			if err != nil {
				return c, fmt.Errorf("epilogue suffix %q: %w", t, err)
			}
			if v[0] == c.EpiM && v[1] == c.EpiN && v[2] == c.EpiStages {
				return c, fmt.Errorf("epilogue suffix %q: the default epilogue is left out of names", t)
			}
			c.EpiM, c.EpiN, c.EpiStages = v[0], v[1], v[2]
		case t == "amn":
			at = sufAMN
			c.MajorA = MNMajor
		case t == "bmn":
			at = sufBMN
			c.MajorB = MNMajor
		case t == "out":
			at = sufOut
			c.StoreOut = true
		case t == "res":
			at = sufRes
			c.Residual = true
		case t == "tanh":
			at = sufTanh
			c.FastSigmoid = true
		case strings.HasPrefix(t, "sf"):
			at = sufSF
			v, err := scanDefaultless(t, "sf", "slice", DefaultSliceFrags)
			if err != nil {
				return c, err
			}
			c.SliceFrags = v
		case t == "l2k":
			at = sufL2K
			c.L2KeepOperands = true
		case t == "clc":
			at = sufCLC
			c.Scheduler = CLCScheduler
		case strings.HasPrefix(t, "clc"):
			at = sufCLC
			v, err := scanDefaultless(t, "clc", "clc ring", DefaultCLCStages)
			if err != nil {
				return c, err
			}
			c.Scheduler, c.CLCStages = CLCScheduler, v
		default:
			return c, fmt.Errorf("unknown suffix %q (want rn, g{N}, e{M}x{N}s{S}, amn, bmn, out, res, tanh, sf{N}, l2k, clc[{N}])", t)
		}
		if at < next {
			return c, fmt.Errorf("suffix %q repeated or out of order (order: rn, g, e, amn, bmn, out, res, tanh, sf, l2k, clc)", t)
		}
		next = at + 1
	}
	return c, nil
}

// scanDefaultless reads the one-number suffix t = lit N (the field what),
// rejecting the field's default def, which canonical names leave out.
func scanDefaultless(t, lit, what string, def int) (int, error) {
	v, err := scanNums(t, lit)
	if err != nil {
		return 0, fmt.Errorf("%s suffix %q: %w", what, t, err)
	}
	if v[0] == def {
		return 0, fmt.Errorf("%s suffix %q: the default %d is left out of names", what, t, def)
	}
	return v[0], nil
}

// scanNums reads s as lits[0] num lits[1] num ... with canonical positive
// decimal numbers (no leading zeros) of at most maxDim.
func scanNums(s string, lits ...string) ([]int, error) {
	out := make([]int, 0, len(lits))
	for _, lit := range lits {
		r, ok := strings.CutPrefix(s, lit)
		if !ok {
			return nil, fmt.Errorf("want %q", lit)
		}
		i := 0
		for i < len(r) && r[i] >= '0' && r[i] <= '9' {
			i++
		}
		d := r[:i]
		if d == "" || d[0] == '0' {
			return nil, fmt.Errorf("want a positive number without leading zeros after %q", lit)
		}
		n, err := strconv.Atoi(d)
		if err != nil || n > maxDim {
			return nil, fmt.Errorf("number %q after %q: must be <= %d", d, lit, maxDim)
		}
		out = append(out, n)
		s = r[i:]
	}
	if s != "" {
		return nil, fmt.Errorf("trailing %q", s)
	}
	return out, nil
}
