package tiling

import (
	"fmt"
	"slices"
	"strings"
)

// SelectionFormat is the format tag of a SelectionTable.
const SelectionFormat = "swigen-select-v1"

// OpVariant is a kernel kind as one op of the Python runtime runs it
// (swigen_rt.opspec.OPS and swigen_rt.package.variant_of read these from
// swigen_rt/kinds_gen.py, which TestPythonKinds keeps current):
// the heuristic's config with StoreOut, or with Residual added, or with
// the weight operand MN-major.
type OpVariant struct {
	Kernel   Kernel
	Name     string
	StoreOut bool
	Residual bool
	// MajorB is the weight operand's major the op prefers (zero: K-major).
	// A selection takes MN-major only where every config it names has a
	// legal MN-major form: the op's weight layout is one per arch and
	// dtype, since the caller lays the weight out before a config is
	// chosen and at K = I the shapes cannot tell the layouts apart.
	// Elsewhere every config stays K-major and Selection.Note says why.
	MajorB Major
	// Op is the torch op (torch.ops.swigen.<Op>), for a ScoreOps entry
	// the name its op launches the _score kernel under (swigen_rt's
	// opspec.OPS; moe_dswiglu_out_score is a torch op too); Inputs and
	// Outputs are its arguments and results, buffers of the kernel's
	// manifest.
	Op              string
	Inputs, Outputs []string
	// Marker is the buffer only this variant's kernels have, by which
	// swigen_rt.package.variant_of tells it from the plain one ("" for
	// the plain variant).
	Marker string
	// F32 are the buffers among Inputs and Outputs the op passes as
	// float32 (the router score and its gradient's partials); the rest
	// are the config's dtype.
	F32 []string
}

// ScoreVariantSuffix marks a _score kernel's op variant (ScoreOps): the
// variant's Name followed by it, as swigen_rt.package.variant_of names a
// kernel with a score buffer.
const ScoreVariantSuffix = "+score"

// ScoreOpVariants are the ops of the kinds' _score kernels
// (KindSpec.ScoreOps), kinds in GoOrder as in OpVariants.
func ScoreOpVariants() []OpVariant {
	return variantsOf(func(s KindSpec) []OpVariant { return s.ScoreOps })
}

// variantsOf is each kind's ops(spec), kinds in GoOrder, Kernel filled in.
func variantsOf(ops func(KindSpec) []OpVariant) []OpVariant {
	specs := Kinds()
	slices.SortStableFunc(specs, func(a, b KindSpec) int { return a.GoOrder - b.GoOrder })
	var vs []OpVariant
	for _, s := range specs {
		for _, v := range ops(s) {
			v.Kernel = s.Kernel
			vs = append(vs, v)
		}
	}
	return vs
}

// OpVariants are the kinds and variants the PyTorch ops run: the
// registry's KindSpec.Ops, kinds in GoOrder (the MLP's data flow, then
// the backward).
func OpVariants() []OpVariant { return variantsOf(func(s KindSpec) []OpVariant { return s.Ops }) }

// HeuristicVariant is HeuristicWhy for op variant v: the heuristic's
// config of v's kind and mode, with Residual added where v has it and
// B's major the one v's selection on a and d takes (Selection.MajorB).
func HeuristicVariant(v OpVariant, a Arch, d DType, s Shape) (Config, string, error) {
	c, why, err := HeuristicWhy(v.Kernel, a, d, s, v.StoreOut)
	if err != nil {
		return Config{}, "", err
	}
	if c, err = v.apply(c); err != nil || v.MajorB != MNMajor {
		return c, why, err
	}
	t, err := Measured()
	if err != nil {
		return Config{}, "", err
	}
	sel, err := selectionOf(t, v, a, d)
	if err != nil {
		return Config{}, "", err
	}
	c.MajorB = sel.MajorB
	return c, why, legality(c)
}

// apply adds v's Residual to c (Override: the stages drop where the
// residual's buffers take shared memory), checked.
func (v OpVariant) apply(c Config) (Config, error) {
	if v.Residual {
		var ov Override
		if err := ov.Set("residual", "true"); err != nil {
			return Config{}, err
		}
		c, _ = ov.Apply(c)
	}
	if err := legality(c); err != nil {
		return Config{}, fmt.Errorf("tiling: %s %s: %w", v.Kernel, v.Name, err)
	}
	return c, nil
}

// SelectionTable is the heuristic as data, for the Python runtime to pick
// a config per call shape by the same rule (swigen_rt.select): per op
// variant, arch and dtype, the measured rows the heuristic looks among
// and the rules' config for every combination of RuleFacts. Go owns the
// rule; Python evaluates it, and a golden of shapes checks both agree.
type SelectionTable struct {
	Format string `json:"format"`
	// MaxDistance is MaxMeasuredDistance.
	MaxDistance float64 `json:"max_distance"`
	// Rules are the constants RuleFacts are computed with.
	Rules     RuleParams  `json:"rules"`
	Selection []Selection `json:"selection"`
	// Skipped are the op variants with no selection on an arch and dtype
	// asked for: a grouped kind with no code there (GroupedMissing).
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is an op variant, arch and dtype a SelectionTable leaves out, and why.
type Skipped struct {
	Kernel  Kernel `json:"kernel"`
	Variant string `json:"variant"`
	Arch    Arch   `json:"arch"`
	DType   DType  `json:"dtype"`
	Why     string `json:"why"`
}

// RuleParams are the constants of factsOf.
type RuleParams struct {
	H200SMs              int `json:"h200_sms"`
	WideTileN            int `json:"wide_tile_n"`
	WideTileGainPct      int `json:"wide_tile_gain_pct"`
	L2KeepMaxWeightBytes int `json:"l2_keep_max_weight_bytes"`
	B200HalfSMs          int `json:"b200_half_sms"`
}

// Selection is the heuristic of one op variant, arch and dtype.
type Selection struct {
	Kernel  Kernel `json:"kernel"`
	Variant string `json:"variant"`
	Arch    Arch   `json:"arch"`
	DType   DType  `json:"dtype"`
	// Measured are the rows nearest looks among, in the table's order;
	// a row whose Config is empty has a winner that does not apply in
	// this dtype (the rules decide there).
	Measured []SelectRow `json:"measured"`
	// Rules is the rules' config for each of the 8 combinations of facts.
	Rules []RuleBranch `json:"rules"`
	// MajorB is the weight operand's major of every config named here:
	// the layout the op takes its weight in (OpVariant.MajorB).
	MajorB Major `json:"major_b"`
	// Note says why a variant that prefers MN-major weights keeps them
	// K-major here.
	Note string `json:"note,omitempty"`
}

// SelectRow is one measured row of a Selection.
type SelectRow struct {
	Shape  Shape  `json:"shape"`
	Config string `json:"config"`
}

// RuleBranch is the rules' config where the shape has these facts.
type RuleBranch struct {
	Facts  RuleFacts `json:"facts"`
	Config string    `json:"config"`
}

// Selections is the SelectionTable of every op variant (OpVariants) on
// each arch in arches and dtype in dtypes, in that order. A grouped kind
// is not in the measured table, so its selection has no measured rows
// and every rule branch names the one rule config emit --kernel takes;
// where that config has no code (GroupedMissing: sm_100a) the variant is
// left out and Skipped says why.
func Selections(arches []Arch, dtypes []DType) (*SelectionTable, error) {
	t, err := Measured()
	if err != nil {
		return nil, err
	}
	out := &SelectionTable{
		Format:      SelectionFormat,
		MaxDistance: MaxMeasuredDistance,
		Rules: RuleParams{H200SMs: h200SMs, WideTileN: wideTileN, WideTileGainPct: wideTileGainPct,
			L2KeepMaxWeightBytes: l2KeepMaxWeightBytes, B200HalfSMs: b200HalfSMs},
	}
	for _, a := range arches {
		for _, d := range dtypes {
			for _, v := range OpVariants() {
				if why := GroupedMissing(v, a, d); why != "" {
					out.Skipped = append(out.Skipped, Skipped{Kernel: v.Kernel, Variant: v.Name, Arch: a, DType: d, Why: why})
					continue
				}
				sel, err := selectionOf(t, v, a, d)
				if err != nil {
					return nil, err
				}
				out.Selection = append(out.Selection, sel)
			}
		}
	}
	return out, nil
}

// GroupedMissing is why grouped op variant v has no kernel on arch a and
// dtype d: its rule config is not implemented there (tiling.Implemented's
// reason); "" where it has one, and for every kind that is not grouped.
// A rule config that does not validate is no gap but a bug: "" here, and
// Selections returns the error.
func GroupedMissing(v OpVariant, a Arch, d DType) string {
	if !v.Kernel.Grouped() {
		return ""
	}
	c, err := ruleConfig(v.Kernel, a, d, v.StoreOut, RuleFacts{})
	if err != nil {
		return ""
	}
	if ok, why := Implemented(c); !ok {
		return why
	}
	return ""
}

func selectionOf(t *MeasuredTable, v OpVariant, a Arch, d DType) (Selection, error) {
	sel := Selection{Kernel: v.Kernel, Variant: v.Name, Arch: a, DType: d, Measured: []SelectRow{}}
	rows, _ := t.rowsFor(v.Kernel, a, d, v.StoreOut)
	for _, r := range rows {
		if v.Kernel == PlainGEMM() && !kMajorBoth(r.Config) {
			// The op's gemm is K-major both; the table's other rows
			// are the step's weight- and input-gradient GEMMs.
			continue
		}
		row := SelectRow{Shape: r.Shape}
		if c, err := (MeasuredChoice{Row: r}).config(d); err == nil {
			if c, err = v.apply(c); err != nil {
				return Selection{}, err
			}
			row.Config = c.Name()
		}
		sel.Measured = append(sel.Measured, row)
	}
	for _, f := range allRuleFacts() {
		c, err := ruleConfig(v.Kernel, a, d, v.StoreOut, f)
		if err == nil {
			c, err = v.apply(c)
		}
		if err != nil {
			return Selection{}, err
		}
		sel.Rules = append(sel.Rules, RuleBranch{Facts: f, Config: c.Name()})
	}
	return sel, sel.takeMajorB(v.MajorB)
}

// takeMajorB gives every config sel names B major want where each has a
// legal form in it; otherwise all stay K-major and Note names the first
// config that has none and the rule it breaks.
func (sel *Selection) takeMajorB(want Major) error {
	sel.MajorB = KMajor
	if want != MNMajor {
		return nil
	}
	names := map[string]string{}
	for _, n := range sel.names() {
		c, err := ParseName(n)
		if err != nil {
			return fmt.Errorf("tiling: selection of %s %s: %w", sel.Kernel, sel.Variant, err)
		}
		c.MajorB = want
		if err := legality(c); err != nil {
			sel.Note = fmt.Sprintf("major_b=k: %s has no legal major_b=%s form (%s); the op takes one weight layout per arch and dtype, so every config here stays K-major",
				n, want, strings.ReplaceAll(err.Error(), "\n", "; "))
			return nil
		}
		names[n] = c.Name()
	}
	for i, r := range sel.Measured {
		if r.Config != "" {
			sel.Measured[i].Config = names[r.Config]
		}
	}
	for i, b := range sel.Rules {
		sel.Rules[i].Config = names[b.Config]
	}
	sel.MajorB = want
	return nil
}

// names is every config sel names, in order, with repeats.
func (sel Selection) names() []string {
	var out []string
	for _, r := range sel.Measured {
		if r.Config != "" {
			out = append(out, r.Config)
		}
	}
	for _, b := range sel.Rules {
		out = append(out, b.Config)
	}
	return out
}

// Choose is the config name sel picks at shape s, and "measured" or
// "rules" for where it came from: HeuristicVariant's choice, from the
// table's data alone (the Python runtime's twin: swigen_rt.select).
func (sel Selection) Choose(s Shape) (string, string, error) {
	if err := s.Validate(); err != nil {
		return "", "", fmt.Errorf("tiling: heuristic: %w", err)
	}
	best, found := -1, false
	bestDist := 0.0
	for i, r := range sel.Measured {
		if d := LogDistance(s, r.Shape); !found || d < bestDist {
			best, bestDist, found = i, d, true
		}
	}
	if found && bestDist <= MaxMeasuredDistance && sel.Measured[best].Config != "" {
		return sel.Measured[best].Config, "measured", nil
	}
	f := factsOf(s, sel.DType)
	for _, b := range sel.Rules {
		if b.Facts == f {
			return b.Config, "rules", nil
		}
	}
	return "", "", fmt.Errorf("tiling: selection of %s %s %s %s: no rule for facts %+v", sel.Kernel, sel.Variant, sel.Arch, sel.DType, f)
}

// Configs is every config the table names, sorted by name, each once.
func (t *SelectionTable) Configs() ([]Config, error) {
	seen := map[string]bool{}
	var out []Config
	add := func(name string) error {
		if name == "" || seen[name] {
			return nil
		}
		seen[name] = true
		c, err := ParseName(name)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}
	for _, sel := range t.Selection {
		for _, n := range sel.names() {
			if err := add(n); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b Config) int {
		if a.Name() < b.Name() {
			return -1
		}
		if a.Name() > b.Name() {
			return 1
		}
		return 0
	})
	return out, nil
}

// kMajorBoth reports whether config name has both operands K-major.
func kMajorBoth(name string) bool {
	c, err := ParseName(name)
	return err == nil && c.MajorA == KMajor && c.MajorB == KMajor
}
