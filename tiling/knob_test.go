package tiling

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// knobConfigs is every config of the tuning spaces and the catalog
// (allConfigs), plus configs with the suffixes none of them carries: a
// non-default epilogue, fast sigmoid, slices, CLC rings.
func knobConfigs() []Config {
	mut := func(c Config, f func(*Config)) Config { f(&c); return c }
	h := cfg90(128, 128, 4, PingPong)
	b := cfg100(256, 256, 5, TwoCTA)
	return append(allConfigs(),
		mut(h, func(c *Config) { c.EpiStages, c.Raster = 3, RasterN }),
		mut(h, func(c *Config) { c.SwizzleGroup, c.EpiStages = 16, 3 }),
		mut(h, func(c *Config) { c.Schedule, c.TileN, c.FastSigmoid, c.SliceFrags = Overlap, 192, true, 8 }),
		mut(b, func(c *Config) { c.Scheduler, c.EpiN = CLCScheduler, 32 }),
		mut(b, func(c *Config) { c.Scheduler, c.CLCStages = CLCScheduler, 2 }),
		mut(b, func(c *Config) { c.Scheduler, c.CLCStages, c.MajorB = CLCScheduler, 5, MNMajor }),
	)
}

// TestKnobRoundTrip checks, over the whole tuning space of every kind,
// arch and dtype (Space, SpaceStoreOut), the catalog and a config of every
// suffix, that name, config and flags carry the same config: Name parses
// back to the config, and the config's flag values (each knob's Format),
// set on an Override and applied to the defaults of its kind, arch and
// dtype, give the config back, with no note.
func TestKnobRoundTrip(t *testing.T) {
	t.Parallel()
	cs := knobConfigs()
	if len(cs) < 100 {
		t.Fatalf("%d configs; the spaces alone hold more", len(cs))
	}
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		got, err := ParseName(c.Name())
		if err != nil {
			t.Errorf("ParseName(%q): %v", c.Name(), err)
		} else if d := cmp.Diff(c, got); d != "" {
			t.Errorf("ParseName(%q) (-want +got):\n%s", c.Name(), d)
		}

		var o Override
		for _, k := range Knobs() {
			if err := o.Set(k.Flag(), k.Format(c)); err != nil {
				t.Errorf("%s: Set(%q, %q): %v", c.Name(), k.Flag(), k.Format(c), err)
			}
		}
		base := Config{Kernel: c.Kernel, Arch: c.Arch, DType: c.DType}.WithDefaults()
		got, notes := o.Apply(base)
		if d := cmp.Diff(c, got); d != "" {
			t.Errorf("%s from its flags over %s (-want +got):\n%s", c.Name(), base.Name(), d)
		}
		if len(notes) > 0 {
			t.Errorf("%s from its flags: notes %q", c.Name(), notes)
		}
	}
}

// TestKnobFormatCanonical: a knob's flag value reads back (Set) to a
// config whose value prints the same.
func TestKnobFormatCanonical(t *testing.T) {
	t.Parallel()
	for _, c := range knobConfigs() {
		for _, k := range Knobs() {
			var o Override
			if err := o.Set(k.Flag(), k.Format(c)); err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			if got, want := k.Format(o.v), k.Format(c); got != want {
				t.Errorf("%s --%s: %q reads back as %q", c.Name(), k.Flag(), want, got)
			}
		}
	}
}

// TestKnobTable checks the table's shape: unique flags, at most 64
// entries (Override's bit set), and every Config field but kernel, arch
// and dtype set by exactly one knob, so a field added without a knob (or
// claimed by two) fails here.
func TestKnobTable(t *testing.T) {
	t.Parallel()
	if len(knobs) > 64 {
		t.Fatalf("%d knobs; Override holds 64", len(knobs))
	}
	seen := map[string]bool{}
	for _, k := range knobs {
		if seen[k.flag] || k.flag == "" {
			t.Errorf("flag %q empty or repeated", k.flag)
		}
		seen[k.flag] = true
		if k.val.format == nil || k.val.parse == nil || k.val.apply == nil {
			t.Errorf("--%s: format, parse or apply missing", k.flag)
		}
		if (k.tok.form == "") != (k.tok.name == nil) || (k.tok.name == nil) != (k.tok.parse == nil) {
			t.Errorf("--%s: token form, name and parse must come together", k.flag)
		}
	}

	// A config with every field non-zero: each knob's apply onto the
	// zero config shows which fields it owns.
	var src Config
	sv := reflect.ValueOf(&src).Elem()
	for i := range sv.NumField() {
		switch f := sv.Field(i); f.Kind() {
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("Config.%s: a %s; extend this test", sv.Type().Field(i).Name, f.Kind())
		}
	}
	owner := map[string][]string{}
	for _, k := range knobs {
		var dst Config
		k.val.apply(&dst, src)
		dv := reflect.ValueOf(dst)
		for i := range dv.NumField() {
			if !dv.Field(i).IsZero() {
				owner[sv.Type().Field(i).Name] = append(owner[sv.Type().Field(i).Name], k.flag)
			}
		}
	}
	for i := range sv.NumField() {
		name := sv.Type().Field(i).Name
		identity := name == "Kernel" || name == "Arch" || name == "DType"
		switch o := owner[name]; {
		case identity && len(o) > 0:
			t.Errorf("Config.%s is no knob's (kernel, arch and dtype are the config's identity), but %s sets it", name, strings.Join(o, ", "))
		case !identity && len(o) != 1:
			t.Errorf("Config.%s is set by %d knobs (%s), want exactly one", name, len(o), strings.Join(o, ", "))
		}
	}
}

// TestOverrideSet checks Set's errors, which name the value and the rule
// and leave the Override as it was, and the fields stored as 0 for their
// default.
func TestOverrideSet(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ flag, v, wantErr string }{
		{"bogus", "1", `tiling: no knob "bogus" (knobs: tile, stages, cluster, schedule, scheduler, raster, swizzle-group, epi, epi-stages, major-a, major-b, store-out, score, residual, fast-sigmoid, epi-pipe, slice-frags, l2k, clc-stages)`},
		{"stages", "0", "--stages 0: must be positive"},
		{"stages", "-1", "--stages -1: must be positive"},
		{"stages", "x", `--stages "x": must be a positive integer`},
		{"tile", "12", `tiling: parse tile "12": want 3 sizes separated by 'x' like "128x128x64"`},
		{"cluster", "0x1", `tiling: parse cluster "0x1": size "0": must be a positive integer`},
		{"epi", "64", `--epi "64": want two positive sizes MxN like 64x64`},
		{"schedule", "fast", `tiling: parse schedule "fast": must be one of cooperative, pingpong, overlap, 1cta, 2cta`},
		{"major-a", "q", `tiling: parse major "q": must be one of k, mn`},
		{"l2k", "maybe", `--l2k "maybe": must be true or false`},
	} {
		o := Override{}
		if err := o.Set("stages", "3"); err != nil {
			t.Fatal(err)
		}
		before := o
		err := o.Set(tt.flag, tt.v)
		if err == nil || err.Error() != tt.wantErr {
			t.Errorf("Set(%q, %q) = %v, want %s", tt.flag, tt.v, err, tt.wantErr)
		}
		if o != before {
			t.Errorf("Set(%q, %q) failed but changed the Override", tt.flag, tt.v)
		}
	}
	var o Override
	for _, fv := range [][2]string{{"clc-stages", "3"}, {"slice-frags", "4"}, {"raster", "N"}} {
		if err := o.Set(fv[0], fv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if o.v.CLCStages != 0 || o.v.SliceFrags != 0 || o.v.Raster != RasterN {
		t.Errorf("defaults not stored as 0, or raster not canonical: %+v", o.v)
	}
}
