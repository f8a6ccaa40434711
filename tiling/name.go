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
// default (each knob's, in the knob table): scheduler static, raster m,
// swizzle group 8, cluster 1x1, majors k, and the arch's default epilogue
// (which needs Arch, Schedule and TileM). Fields already set are kept.
func (c Config) WithDefaults() Config {
	for _, k := range knobs {
		if k.fill != nil {
			k.fill(&c)
		}
	}
	return c
}

// Name returns the procedural name of c, e.g.
// bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong: kernel, arch and
// dtype, then the knob table's head tokens. The remaining knobs add a
// suffix only when they differ from their default, in this order: _sk
// (stream-K scheduler), _rn
// (raster n), _g{N} (swizzle group), _e{EpiM}x{EpiN}s{EpiStages}
// (non-default epilogue), _amn (MajorA mn), _bmn (MajorB mn), _out
// (StoreOut), _score (Score), _res (Residual), _tanh (FastSigmoid), _pipe (EpiPipe), _sf{N}
// (SliceFrags),
// _l2k (L2KeepOperands), _clc (CLC scheduler; _clc{N} with CLCStages N).
//
// The name of a valid config is a C identifier and a file name; it is the
// cubin entry point, the cache key prefix and the golden file stem.
// ParseName inverts it.
func (c Config) Name() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s_%s_%s", c.Kernel, c.Arch.Token(), c.DType)
	for _, k := range knobs {
		if k.tok.name == nil {
			continue
		}
		if t := k.tok.name(c); t != "" || k.tok.head {
			b.WriteString("_")
			b.WriteString(t)
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
	for _, k := range AllKernels() {
		if r, ok := strings.CutPrefix(s, string(k)+"_"); ok {
			c.Kernel, rest = k, r
			break
		}
	}
	if c.Kernel == "" {
		return c, fmt.Errorf("must start with a kernel kind (%s)", join.Strings(AllKernels()))
	}
	heads, _ := nameKnobs()
	tok := strings.Split(rest, "_")
	if len(tok) < 2+len(heads) {
		return c, fmt.Errorf("want kernel_arch_dtype_%s[_suffixes]", tokenForms(heads, "_"))
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
	for i, k := range heads {
		if err := k.tok.parse(&c, tok[2+i]); err != nil {
			return c, fmt.Errorf("%s token %q: %w", k.tok.what, tok[2+i], err)
		}
	}
	c = c.WithDefaults()
	return c, parseSuffixes(&c, tok[2+len(heads):])
}

// parseSuffixes reads the suffixes toks into c, which holds the defaults:
// each at most once and in the knob table's order.
func parseSuffixes(c *Config, toks []string) error {
	_, sufs := nameKnobs()
	next := 0
	for _, t := range toks {
		at := -1
		for i, k := range sufs {
			if t == k.tok.lit || k.tok.num && strings.HasPrefix(t, k.tok.lit) {
				at = i
				break
			}
		}
		if at < 0 {
			return fmt.Errorf("unknown suffix %q (want %s)", t, tokenForms(sufs, ", "))
		}
		if err := sufs[at].tok.parse(c, t); err != nil {
			return fmt.Errorf("%s suffix %q: %w", sufs[at].tok.what, t, err)
		}
		if at < next {
			var lits []string
			for _, k := range sufs {
				lits = append(lits, k.tok.lit)
			}
			return fmt.Errorf("suffix %q repeated or out of order (order: %s)", t, strings.Join(lits, ", "))
		}
		next = at + 1
	}
	return nil
}

// nameKnobs splits the knobs with a token of their own into the head's
// and the suffixes', each in table order.
func nameKnobs() (heads, sufs []Knob) {
	for _, k := range knobs {
		switch {
		case k.tok.form == "":
		case k.tok.head:
			heads = append(heads, k)
		default:
			sufs = append(sufs, k)
		}
	}
	return heads, sufs
}

// tokenForms lists the tokens of ks as messages show them.
func tokenForms(ks []Knob, sep string) string {
	var f []string
	for _, k := range ks {
		f = append(f, k.tok.form)
	}
	return strings.Join(f, sep)
}

// scanDefaultless reads the one-number suffix t = lit N, rejecting the
// field's default def, which canonical names leave out.
func scanDefaultless(t, lit string, def int) (int, error) {
	v, err := scanNums(t, lit)
	if err != nil {
		return 0, err
	}
	if v[0] == def {
		return 0, fmt.Errorf("the default %d is left out of names", def)
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
