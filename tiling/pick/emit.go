// Package pick turns the commands' config selection (the heuristic,
// --tuned, --name, --catalog, --space and the field flags) into configs,
// with the notes and errors the CLI prints. Request is emit's and diff's
// selection, Fixed is verify's and bench's; both read the flags' words
// as given, so every rule and message lives here and the commands only
// copy their flags in.
package pick

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
)

// TunedFunc looks up the winner of a results DB at path for the
// heuristic's config heur at shape (runtime/tune's DB, which this
// package cannot link): the config to use and a note saying which it is.
type TunedFunc func(path string, heur tiling.Config, shape tiling.Shape, storeOut bool) (tiling.Config, string, error)

// Request is emit's (and diff's) selection: the flags' words as given.
// Kernels, Arches, DType and Shape pick the heuristic's configs, which
// --tuned's winners replace and the field flags (Fields) override; Name
// and Catalog replace the heuristic. Only the flags in Changed count as
// given.
type Request struct {
	Kernels []string // --kernel, repeatable or comma-separated
	Arches  []string
	DType   string
	Shape   string
	Name    string
	Catalog bool
	Tuned   string // --tuned: a swigen tune results DB whose winners replace the heuristic
	// TunedConfig looks up --tuned's winners.
	TunedConfig TunedFunc
	// Fields holds the field flags given (those of tiling.Knobs), by
	// name: each flag's words as the flag read them, one but for a list
	// flag (--schedule).
	Fields map[string][]string
	// Changed holds the names of the flags given on the command line;
	// only those override the heuristic.
	Changed map[string]bool
}

// Configs resolves the flags to the configs to emit, plus notes for the
// user (flags applied to only some archs, fields that gave way to the
// given ones, --tuned's choice). Errors are usage errors.
func (o *Request) Configs() ([]tiling.Config, []string, error) {
	var given []string
	for _, k := range tiling.Knobs() {
		if o.Changed[k.Flag()] {
			given = append(given, "--"+k.Flag())
		}
	}
	switch {
	case o.Tuned != "" && (o.Catalog || o.Name != ""):
		return nil, nil, errors.New("--tuned replaces the heuristic choice; it cannot be combined with --catalog or --name")
	case o.Catalog && o.Name != "":
		return nil, nil, errors.New("--catalog and --name exclude each other")
	case o.Catalog && len(given) > 0:
		return nil, nil, fmt.Errorf("--catalog emits the catalog as is; it cannot be combined with %s", strings.Join(given, ", "))
	case o.Catalog && o.Changed["shape"]:
		return nil, nil, errors.New("--catalog does not use --shape (it is not heuristic)")
	case o.Name != "":
		for _, n := range []string{"kernel", "arch", "dtype", "shape"} {
			if o.Changed[n] {
				return nil, nil, fmt.Errorf("--name fixes kernel, arch and dtype; drop --%s", n)
			}
		}
		if len(given) > 0 {
			return nil, nil, o.nameWithFields(given)
		}
	}

	if o.Catalog {
		return o.catalog()
	}

	if o.Name != "" {
		c, err := tiling.ParseName(o.Name)
		if err != nil {
			return nil, nil, err
		}
		return []tiling.Config{c}, nil, nil
	}
	base, baseNotes, err := o.heuristicBase()
	if err != nil {
		return nil, nil, err
	}
	cfgs, notes, err := o.Override(base)
	return cfgs, append(baseNotes, notes...), err
}

// heuristicBase returns the configs the field flags apply to: the
// heuristic's (or --tuned's winner) for every kind and arch selected.
func (o *Request) heuristicBase() ([]tiling.Config, []string, error) {
	ks, err := ParseKernels(o.Kernels)
	if err != nil {
		return nil, nil, err
	}
	d, err := tiling.ParseDType(o.DType)
	if err != nil {
		return nil, nil, err
	}
	arches, err := ParseArches(o.Arches)
	if err != nil {
		return nil, nil, err
	}
	shape, err := tiling.ParseShape(o.Shape)
	if err != nil {
		return nil, nil, err
	}
	var base []tiling.Config
	var notes []string
	for _, k := range ks {
		for _, a := range arches {
			h := tiling.Heuristic
			if o.StoreOut() {
				h = tiling.HeuristicStoreOut // with out stored bwd_dswiglu keeps 128x128 (the ring beside out's buffers)
			}
			c, err := h(k, a, d, shape)
			if err != nil {
				return nil, nil, fmt.Errorf("heuristic for %s %s %s at %s: %w", k, a, d, shape, err)
			}
			if ok, why := tiling.Implemented(c); !ok && len(ks)*len(arches) > 1 {
				// Several kinds x archs asked for: skip the pairs the
				// generator has no template for, with a note.
				notes = append(notes, fmt.Sprintf("skipped %s for %s: %s", k, a, why))
				continue
			}
			if o.Tuned != "" {
				var note string
				if c, note, err = o.TunedConfig(o.Tuned, c, shape, o.StoreOut()); err != nil {
					return nil, nil, err
				}
				notes = append(notes, note)
			}
			base = append(base, c)
		}
	}
	if len(base) == 0 {
		return nil, nil, fmt.Errorf("no kernel to emit: %s", strings.Join(notes, "; "))
	}
	return base, notes, nil
}

// HeuristicReasons says, for each kind and arch whose config the heuristic
// chose (no --catalog, --name or --tuned), which config and why
// (tiling.HeuristicWhy), before field flags apply.
func (o *Request) HeuristicReasons() []string {
	if o.Catalog || o.Name != "" || o.Tuned != "" {
		return nil
	}
	ks, err1 := ParseKernels(o.Kernels)
	d, err2 := tiling.ParseDType(o.DType)
	arches, err3 := ParseArches(o.Arches)
	shape, err4 := tiling.ParseShape(o.Shape)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil // configs reported it
	}
	storeOut := o.StoreOut()
	var out []string
	for _, k := range ks {
		for _, a := range arches {
			if c, why, err := tiling.HeuristicWhy(k, a, d, shape, storeOut); err == nil {
				out = append(out, fmt.Sprintf("%s %s at %d,%d,%d: %s (%s)", k, a, shape.M, shape.K, shape.I, c.Name(), why))
			}
		}
	}
	return out
}

// nameWithFields is the error for --name with field flags: the name fixes
// every field, so a flag that sets one asks for another config. When that
// config is valid, the error names it.
func (o *Request) nameWithFields(given []string) error {
	err := fmt.Errorf("--name %s fixes every field of the config; it cannot be combined with %s", o.Name, strings.Join(given, ", "))
	c, perr := tiling.ParseName(o.Name)
	ov, oerr := o.FieldOverride()
	if perr != nil || oerr != nil {
		return err
	}
	if o.Changed["schedule"] {
		m, _, serr := schedulesFor(o.Fields["schedule"], []tiling.Arch{c.Arch})
		if serr != nil {
			return err
		}
		if s, ok := m[c.Arch]; ok && ov.Set("schedule", string(s)) != nil {
			return err
		}
	}
	if other, _ := ov.Apply(c); other != c && other.Validate() == nil {
		return fmt.Errorf("%w (to emit %s, give --name %s alone)", err, other.Name(), other.Name())
	}
	return err
}

// catalog returns tiling.Catalog, filtered by the kernel/arch/dtype flags
// that were given.
func (o *Request) catalog() ([]tiling.Config, []string, error) {
	var (
		ks     []tiling.Kernel
		arches []tiling.Arch
		ds     []tiling.DType
	)
	if o.Changed["kernel"] {
		var err error
		if ks, err = ParseKernels(o.Kernels); err != nil {
			return nil, nil, err
		}
	}
	if o.Changed["arch"] {
		var err error
		if arches, err = ParseArches(o.Arches); err != nil {
			return nil, nil, err
		}
	}
	if o.Changed["dtype"] {
		d, err := tiling.ParseDType(o.DType)
		if err != nil {
			return nil, nil, err
		}
		ds = []tiling.DType{d}
	}
	cfgs := FilterConfigs(tiling.Catalog(), ks, arches, ds)
	if len(cfgs) == 0 {
		return nil, nil, errors.New("no catalog config matches --kernel/--arch/--dtype")
	}
	return cfgs, nil, nil
}

// Override applies the field flags that were given to every base config
// (tiling.Override: a schedule not given gives way when it cannot take
// them; the notes say so).
func (o *Request) Override(base []tiling.Config) ([]tiling.Config, []string, error) {
	ov, err := o.FieldOverride()
	if err != nil {
		return nil, nil, err
	}
	var arches []tiling.Arch
	for _, c := range base {
		arches = append(arches, c.Arch)
	}
	var schedFor map[tiling.Arch]tiling.Schedule
	var notes []string
	if o.Changed["schedule"] {
		if schedFor, notes, err = schedulesFor(o.Fields["schedule"], arches); err != nil {
			return nil, nil, err
		}
	}
	if o.Changed["l2k"] {
		// The L2 policy exists only in the sm_90a templates (TMA's cache
		// hint); elsewhere the flag would be dropped without a word.
		var other []string
		for _, a := range Uniq(arches) {
			if a != tiling.ArchSM90a {
				other = append(other, string(a))
			}
		}
		switch {
		case len(other) == len(Uniq(arches)):
			return nil, nil, fmt.Errorf("--l2k applies to sm_90a configs only; the selected arch is %s (add --arch sm_90a)", strings.Join(other, ", "))
		case len(other) > 0:
			notes = append(notes, fmt.Sprintf("--l2k does not apply to %s (an sm_90a policy); it keeps its heuristic's", strings.Join(other, ", ")))
		}
	}
	out := make([]tiling.Config, len(base))
	for i, c := range base {
		one := ov
		if s, ok := schedFor[c.Arch]; ok {
			if err := one.Set("schedule", string(s)); err != nil {
				return nil, nil, err
			}
		}
		var n []string
		out[i], n = one.Apply(c)
		notes = append(notes, n...)
	}
	return out, notes, nil
}

// FieldOverride parses the field flags that were given (all of their
// errors at once) into a tiling.Override. --schedule is left out: its
// words are per arch (schedulesFor), so override sets it per config.
func (o *Request) FieldOverride() (tiling.Override, error) {
	var ov tiling.Override
	var errs []error
	for _, k := range tiling.Knobs() {
		words, ok := o.Fields[k.Flag()]
		if !ok || k.Kind() == tiling.FlagList {
			continue
		}
		for _, w := range words {
			if err := ov.Set(k.Flag(), w); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return ov, errors.Join(errs...)
}

// StoreOut reports whether --store-out was given true.
func (o *Request) StoreOut() bool {
	w := o.Fields["store-out"]
	return len(w) == 1 && w[0] == "true"
}

// schedulesFor assigns each --schedule value to the selected archs where it
// is legal. Schedules are arch-specific (sm_90a: cooperative, pingpong, overlap;
// sm_100a: 1cta, 2cta), so with both archs selected one flag can name one
// schedule per arch. A value legal on no selected arch, or two values for
// one arch, is an error; an arch no value applies to keeps its schedule and
// gets a note.
func schedulesFor(values []string, arches []tiling.Arch) (map[tiling.Arch]tiling.Schedule, []string, error) {
	m := map[tiling.Arch]tiling.Schedule{}
	for _, v := range values {
		s, err := tiling.ParseSchedule(v)
		if err != nil {
			return nil, nil, err
		}
		hit := false
		for _, a := range arches {
			if !slices.Contains(tiling.SchedulesFor(a), s) {
				continue
			}
			if prev, ok := m[a]; ok && prev != s {
				return nil, nil, fmt.Errorf("--schedule: both %s and %s are %s schedules; give one per arch", prev, s, a)
			}
			m[a], hit = s, true
		}
		if !hit {
			return nil, nil, fmt.Errorf("--schedule %s is not legal on %s (%s)", s, join.Strings(arches), legalSchedules(arches))
		}
	}
	var notes []string
	for _, a := range Uniq(arches) {
		if _, ok := m[a]; !ok {
			notes = append(notes, fmt.Sprintf("--schedule %s does not apply to %s (%s); it keeps its heuristic schedule",
				strings.Join(values, ","), a, legalSchedules([]tiling.Arch{a})))
		}
	}
	return m, notes, nil
}

// legalSchedules says which schedules each of arches takes.
func legalSchedules(arches []tiling.Arch) string {
	var parts []string
	for _, a := range Uniq(arches) {
		parts = append(parts, fmt.Sprintf("%s takes %s", a, join.Strings(tiling.SchedulesFor(a))))
	}
	return strings.Join(parts, "; ")
}
