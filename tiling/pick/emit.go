package pick

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swigen/swigen/tiling"
)

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
	var base []tiling.Config
	var notes []string
	for _, k := range ks {
		shape, err := tiling.ParseKindShape(k, o.Shape)
		if err != nil {
			return nil, nil, err
		}
		for _, a := range arches {
			c, err := o.heuristic(k, a, d, shape)
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
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil // configs reported it
	}
	storeOut := o.StoreOut()
	var out []string
	for _, k := range ks {
		shape, err := tiling.ParseKindShape(k, o.Shape)
		if err != nil {
			return nil // configs reported it
		}
		for _, a := range arches {
			if c, why, err := tiling.HeuristicWhy(k, a, d, shape, storeOut); err == nil {
				out = append(out, fmt.Sprintf("%s %s at %s: %s (%s)", k, a, tiling.FormatKindShape(k, shape), c.Name(), why))
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
