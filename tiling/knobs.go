package tiling

import (
	"fmt"
	"strconv"

	"github.com/swigen/swigen/internal/join"
)

// knobs is the knob table (see Knob). Its order is the order of the name's
// head tokens and suffixes, and of emit's field flags. Kernel, arch and
// dtype are not knobs: they say what a config is, not how it is tiled, and
// emit selects them with its own list flags.
var knobs = []Knob{
	{
		flag: "tile", usage: "tile MxNxK, e.g. 128x128x64",
		val: dimsValue(tileFields, parseTileFlag),
		tok: headNums("tile", "m{M}n{N}k{K}", tileFields, "m", "n", "k"),
	},
	{
		flag: "stages", usage: "operand pipeline stages",
		val: intValue(func(c *Config) *int { return &c.Stages }, 0),
		tok: headNums("stages", "s{S}", func(c *Config) []*int { return []*int{&c.Stages} }, "s"),
	},
	{
		flag: "cluster", usage: "cluster shape MxN, e.g. 2x1",
		val:  dimsValue(clusterFields, parseClusterFlag),
		tok:  headNums("cluster", "c{M}x{N}", clusterFields, "c", "x"),
		fill: func(c *Config) { fillInt(&c.ClusterM, 1); fillInt(&c.ClusterN, 1) },
	},
	{
		flag:  "schedule",
		usage: "schedule per arch: cooperative|pingpong|overlap (sm_90a; overlap: bwd_dswiglu only), 1cta|2cta (sm_100a)",
		val:   listOf(enumValue(func(c *Config) *Schedule { return &c.Schedule }, ParseSchedule)),
		tok:   scheduleToken,
	},
	{
		// The token _sk names stream-K; clc-stages' token names clc, whose
		// ring depth it carries.
		flag: "scheduler", usage: "tile scheduler: " + join.Strings(Schedulers()) + " (clc: sm_100a only; streamk: sm_90a, name suffix _sk)",
		val: enumValue(func(c *Config) *Scheduler { return &c.Scheduler }, ParseScheduler),
		tok: litSuffix("sk", func(c Config) bool { return c.Scheduler == StreamKScheduler },
			func(c *Config) { c.Scheduler = StreamKScheduler }),
		fill: func(c *Config) { fillEnum(&c.Scheduler, DefaultSchedulerOf(c.Kernel)) },
	},
	{
		flag: "raster", usage: "raster order of the tile scheduler: " + join.Strings(Rasters()),
		val: enumValue(func(c *Config) *Raster { return &c.Raster }, ParseRaster),
		tok: litSuffix("rn", func(c Config) bool { return c.Raster == RasterN },
			func(c *Config) { c.Raster = RasterN }),
		fill: func(c *Config) { fillEnum(&c.Raster, DefaultRaster) },
	},
	{
		flag: "swizzle-group", usage: "tile rows/columns walked together: " + join.Ints(SwizzleGroups()),
		val:  intValue(swizzleField, 0),
		tok:  numSuffix("swizzle group", "g", DefaultSwizzleGroup, DefaultSwizzleGroup, swizzleField),
		fill: func(c *Config) { fillInt(&c.SwizzleGroup, DefaultSwizzleGroup) },
	},
	{
		flag: "epi", usage: "epilogue sub-tile MxN, e.g. 64x64",
		val: dimsValue(func(c *Config) []*int { return []*int{&c.EpiM, &c.EpiN} }, parseEpiFlag),
		tok: epiToken,
		fill: func(c *Config) {
			m, n, _ := DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
			fillInt(&c.EpiM, m)
			fillInt(&c.EpiN, n)
		},
	},
	{
		// In epi's token, which names the whole sub-tile ring.
		flag: "epi-stages", usage: "epilogue buffer depth",
		val: intValue(func(c *Config) *int { return &c.EpiStages }, 0),
		fill: func(c *Config) {
			_, _, s := DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
			fillInt(&c.EpiStages, s)
		},
	},
	{
		flag: "major-a", usage: "major of operand A: " + join.Strings(Majors()),
		val: enumValue(func(c *Config) *Major { return &c.MajorA }, ParseMajor),
		tok: litSuffix("amn", func(c Config) bool { return c.MajorA == MNMajor },
			func(c *Config) { c.MajorA = MNMajor }),
		fill: func(c *Config) { fillEnum(&c.MajorA, DefaultMajor) },
	},
	{
		flag: "major-b", usage: "major of operand B: " + join.Strings(Majors()),
		val: enumValue(func(c *Config) *Major { return &c.MajorB }, ParseMajor),
		tok: litSuffix("bmn", func(c Config) bool { return c.MajorB == MNMajor },
			func(c *Config) { c.MajorB = MNMajor }),
		fill: func(c *Config) { fillEnum(&c.MajorB, DefaultMajor) },
	},
	{
		flag:  "store-out",
		usage: "bwd_dswiglu: also store the recomputed out = left*silu(gate); fwd_gateup: also store de = [left | gate] (training)",
		val:   boolValue(func(c *Config) *bool { return &c.StoreOut }),
		tok: litSuffix("out", func(c Config) bool { return c.StoreOut },
			func(c *Config) { c.StoreOut = true }),
	},
	{
		flag:  "score",
		usage: "moe_fwd_gateup, moe_bwd_dswiglu: take a router score per row (out scaled; the backward writes the score's gradient as partials; name suffix _score)",
		val:   boolValue(func(c *Config) *bool { return &c.Score }),
		tok: litSuffix("score", func(c Config) bool { return c.Score },
			func(c *Config) { c.Score = true }),
	},
	{
		// No emit flag: the residual is part of the fwd_down kernel a
		// model asks for (--name), not a tuning choice.
		flag: "residual",
		val:  boolValue(func(c *Config) *bool { return &c.Residual }),
		tok: litSuffix("res", func(c Config) bool { return c.Residual },
			func(c *Config) { c.Residual = true }),
	},
	{
		// No emit flag: names set it (--name).
		flag: "fast-sigmoid",
		val:  boolValue(func(c *Config) *bool { return &c.FastSigmoid }),
		tok: litSuffix("tanh", func(c Config) bool { return c.FastSigmoid },
			func(c *Config) { c.FastSigmoid = true }),
	},
	{
		flag: "epi-pipe", arch: ArchSM90a,
		usage: "sm_90a bwd_dswiglu: dout rounded after the mainloop and each epilogue sub-tile's de loaded before the previous one's math (name suffix _pipe)",
		val:   boolValue(func(c *Config) *bool { return &c.EpiPipe }),
		tok: litSuffix("pipe", func(c Config) bool { return c.EpiPipe },
			func(c *Config) { c.EpiPipe = true }),
	},
	{
		// No emit flag: names set it (--name). The default is stored as 0.
		flag: "slice-frags",
		val:  intValue(sliceFragsField, DefaultSliceFrags),
		tok:  numSuffix("slice", "sf", 0, DefaultSliceFrags, sliceFragsField),
	},
	{
		flag: "l2k", arch: ArchSM90a,
		usage: "sm_90a configs: an L2 evict_last policy on the operand loads (name suffix _l2k; --l2k=false turns off the heuristic's)",
		val:   boolValue(func(c *Config) *bool { return &c.L2KeepOperands }),
		tok: litSuffix("l2k", func(c Config) bool { return c.L2KeepOperands },
			func(c *Config) { c.L2KeepOperands = true }),
	},
	{
		// The default depth is stored as 0, as names leave it out.
		flag: "clc-stages", arch: ArchSM100a,
		usage: "sm_100a configs with --scheduler clc: depth of the CLC response ring (default accumulator stages + 1 = " +
			strconv.Itoa(DefaultCLCStages) + "; name suffix _clc{N})",
		val: intValue(func(c *Config) *int { return &c.CLCStages }, DefaultCLCStages),
		tok: clcToken,
	},
}

func tileFields(c *Config) []*int    { return []*int{&c.TileM, &c.TileN, &c.TileK} }
func clusterFields(c *Config) []*int { return []*int{&c.ClusterM, &c.ClusterN} }
func swizzleField(c *Config) *int    { return &c.SwizzleGroup }
func sliceFragsField(c *Config) *int { return &c.SliceFrags }

// fillInt and fillEnum set a zero field to its default.
func fillInt(f *int, def int) {
	if *f == 0 {
		*f = def
	}
}

func fillEnum[T ~string](f *T, def T) {
	if *f == "" {
		*f = def
	}
}

// listOf makes v a list flag: the command line takes several words, and
// each is one value (--schedule gives one schedule per arch).
func listOf(v value) value {
	v.kind = FlagList
	return v
}

// scheduleToken is the schedule as named, one of Schedules exactly.
var scheduleToken = token{
	form: "schedule", head: true, what: "schedule",
	name: func(c Config) string { return string(c.Schedule) },
	parse: func(c *Config, t string) error {
		for _, s := range Schedules() {
			if t == string(s) {
				c.Schedule = s
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", join.Strings(Schedules()))
	},
}

// epiToken is e{EpiM}x{EpiN}s{EpiStages}, written when any of the three
// differs from the arch's default epilogue for the tile and schedule.
var epiToken = token{
	form: "e{M}x{N}s{S}", lit: "e", num: true, what: "epilogue",
	name: func(c Config) string {
		if m, n, s := DefaultEpilogue(c.Arch, c.Schedule, c.TileM); c.EpiM != m || c.EpiN != n || c.EpiStages != s {
			return numsName([]string{"e", "x", "s"}, c.EpiM, c.EpiN, c.EpiStages)
		}
		return ""
	},
	parse: func(c *Config, t string) error {
		v, err := scanNums(t, "e", "x", "s")
		if err != nil {
			return err
		}
		if v[0] == c.EpiM && v[1] == c.EpiN && v[2] == c.EpiStages {
			return fmt.Errorf("the default epilogue is left out of names")
		}
		c.EpiM, c.EpiN, c.EpiStages = v[0], v[1], v[2]
		return nil
	},
}

// clcToken is clc (the CLC scheduler, default ring) or clc{N} (a ring of
// CLCStages N).
var clcToken = token{
	form: "clc[{N}]", lit: "clc", num: true, what: "clc ring",
	name: func(c Config) string {
		switch {
		case c.Scheduler != CLCScheduler:
			return ""
		case c.CLCStages != 0:
			return "clc" + strconv.Itoa(c.CLCStages)
		}
		return "clc"
	},
	parse: func(c *Config, t string) error {
		c.Scheduler = CLCScheduler
		if t == "clc" {
			return nil
		}
		v, err := scanDefaultless(t, "clc", DefaultCLCStages)
		if err != nil {
			return err
		}
		c.CLCStages = v
		return nil
	},
}
