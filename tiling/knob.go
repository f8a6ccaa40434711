package tiling

import (
	"fmt"
	"strconv"
	"strings"
)

// FlagKind is how a command line reads a knob's flag.
type FlagKind int

// The flag kinds.
const (
	FlagString FlagKind = iota // one word: --tile 128x128x64
	FlagInt                    // an integer: --stages 4
	FlagBool                   // --l2k, or --l2k=false
	FlagList                   // words separated by commas, repeatable: --schedule pingpong,2cta (one per arch)
)

// A Knob is one entry of the knob table (Knobs): a tunable field of
// Config, or fields that are set together (the tile's M, N and K), with
// all that names it, reads and prints it as a flag, gives its default and
// sets it over another config. Name and ParseName, WithDefaults, Override
// and emit's flags all iterate the table, so a new knob is one entry there
// plus its Config field and its use in a template.
type Knob struct {
	// flag is the knob's key: emit's flag and Override.Set's name.
	flag string
	// usage is the flag's help text; "" when emit has no flag for the
	// knob (names set it, and Override.Set).
	usage string
	// arch, when set, is the only arch whose configs the knob applies to:
	// Override leaves it alone on the others, so one flag can serve a list
	// of archs.
	arch Arch
	val  value
	tok  token
	// fill gives c's zero fields of the knob their default (WithDefaults);
	// nil for a knob without one.
	fill func(c *Config)
}

// value is how a knob's fields read and print as a flag value, and copy
// from one config to another.
type value struct {
	kind FlagKind
	// format returns c's value as the flag would take it.
	format func(c Config) string
	// parse sets c's fields from v, a value of the flag called flag (for
	// a FlagList knob, one of its words). Its errors name the value and
	// the rule.
	parse func(flag, v string, c *Config) error
	// apply copies the knob's fields from src to dst.
	apply func(dst *Config, src Config)
}

// token is a knob's part of a name. Head tokens are always written, after
// kernel, arch and dtype, in table order; suffixes follow in table order,
// each only when the knob does not hold its default, and ParseName
// accepts them only so.
type token struct {
	// form is the token as messages show it: "m{M}n{N}k{K}", "rn", "g{N}";
	// "" when the token of another knob holds this knob's fields.
	form string
	head bool
	// lit is a suffix's literal, as the order list names it ("rn", "g").
	lit string
	// num makes the suffix carry a number after lit: a suffix is the
	// knob's when it starts with lit (otherwise, when it is lit).
	num bool
	// what names the token in parse errors ("tile", "swizzle group").
	what string
	// name is c's token; a suffix's "" leaves it out.
	name func(c Config) string
	// parse reads the token t into c, which holds the defaults of the
	// knobs not named yet.
	parse func(c *Config, t string) error
}

// Knobs returns the knob table, in the order of names (head, then
// suffixes) and of emit's field flags.
func Knobs() []Knob { return append([]Knob(nil), knobs...) }

// Flag returns the knob's key: the name of its emit flag and of
// Override.Set.
func (k Knob) Flag() string { return k.flag }

// Usage returns the help text of the knob's emit flag, or "" when emit
// has no flag for the knob.
func (k Knob) Usage() string { return k.usage }

// Kind returns how a command line reads the knob's flag.
func (k Knob) Kind() FlagKind { return k.val.kind }

// Arch returns the only arch whose configs the knob applies to, or ""
// when it applies to all.
func (k Knob) Arch() Arch { return k.arch }

// Format returns c's value of the knob as its flag takes it, so that
// Override.Set(k.Flag(), k.Format(c)) sets the knob to c's value.
func (k Knob) Format(c Config) string { return k.val.format(c) }

// knobIndex returns the position of the knob called flag in knobs, or -1.
func knobIndex(flag string) int {
	for i, k := range knobs {
		if k.flag == flag {
			return i
		}
	}
	return -1
}

// The values of the knob kinds.

// intValue is a one-int knob given as a positive integer. With def > 0
// the field stores its default def as 0 (names leave it out): format
// prints def for 0, and parse stores def as 0.
func intValue(field func(c *Config) *int, def int) value {
	return value{
		kind: FlagInt,
		format: func(c Config) string {
			v := *field(&c)
			if v == 0 && def > 0 {
				v = def
			}
			return strconv.Itoa(v)
		},
		parse: func(flag, s string, c *Config) error {
			v, err := strconv.Atoi(s)
			switch {
			case err != nil:
				return fmt.Errorf("--%s %q: must be a positive integer", flag, s)
			case v <= 0:
				// An Override reads 0 as the default of a zero-stored
				// field, and no other field takes 0 or less.
				return fmt.Errorf("--%s %d: must be positive", flag, v)
			case v == def:
				v = 0
			}
			*field(c) = v
			return nil
		},
		apply: func(dst *Config, src Config) { *field(dst) = *field(&src) },
	}
}

// dimsValue is a knob of several sizes given as "AxB[xC]", read by parse.
func dimsValue(fields func(c *Config) []*int, parse func(flag, s string) ([]int, error)) value {
	return value{
		kind: FlagString,
		format: func(c Config) string {
			var s []string
			for _, f := range fields(&c) {
				s = append(s, strconv.Itoa(*f))
			}
			return strings.Join(s, "x")
		},
		parse: func(flag, s string, c *Config) error {
			v, err := parse(flag, s)
			if err != nil {
				return err
			}
			for i, f := range fields(c) {
				*f = v[i]
			}
			return nil
		},
		apply: func(dst *Config, src Config) {
			d, s := fields(dst), fields(&src)
			for i := range d {
				*d[i] = *s[i]
			}
		},
	}
}

// enumValue is a knob of one enum field, read by parse (case-insensitive).
func enumValue[T ~string](field func(c *Config) *T, parse func(string) (T, error)) value {
	return value{
		kind:   FlagString,
		format: func(c Config) string { return string(*field(&c)) },
		parse: func(_, s string, c *Config) error {
			v, err := parse(s)
			if err != nil {
				return err
			}
			*field(c) = v
			return nil
		},
		apply: func(dst *Config, src Config) { *field(dst) = *field(&src) },
	}
}

// boolValue is a knob of one bool field, given as true or false.
func boolValue(field func(c *Config) *bool) value {
	return value{
		kind:   FlagBool,
		format: func(c Config) string { return strconv.FormatBool(*field(&c)) },
		parse: func(flag, s string, c *Config) error {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("--%s %q: must be true or false", flag, s)
			}
			*field(c) = v
			return nil
		},
		apply: func(dst *Config, src Config) { *field(dst) = *field(&src) },
	}
}

// parseTileFlag and parseClusterFlag read the tile and cluster flags.
func parseTileFlag(_, s string) ([]int, error) { return parseDims("tile", s, 3, `"128x128x64"`) }

func parseClusterFlag(_, s string) ([]int, error) { return parseDims("cluster", s, 2, `"2x1"`) }

// parseEpiFlag reads the epilogue sub-tile "MxN" into two positive sizes.
func parseEpiFlag(flag, s string) ([]int, error) {
	ms, ns, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	v := make([]int, 2)
	for i, p := range []string{ms, ns} {
		n, err := strconv.Atoi(p)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("--%s %q: want two positive sizes MxN like 64x64", flag, s)
		}
		v[i] = n
	}
	return v, nil
}

// The tokens of the knob kinds.

// numsName is the token lits[0] vs[0] lits[1] vs[1] ...
func numsName(lits []string, vs ...int) string {
	var b strings.Builder
	for i, l := range lits {
		b.WriteString(l)
		b.WriteString(strconv.Itoa(vs[i]))
	}
	return b.String()
}

// headNums is a head token of int fields, each after its literal:
// m{M}n{N}k{K} for lits m, n, k.
func headNums(what, form string, fields func(c *Config) []*int, lits ...string) token {
	return token{
		form: form, head: true, what: what,
		name: func(c Config) string {
			var vs []int
			for _, f := range fields(&c) {
				vs = append(vs, *f)
			}
			return numsName(lits, vs...)
		},
		parse: func(c *Config, t string) error {
			v, err := scanNums(t, lits...)
			if err != nil {
				return err
			}
			for i, f := range fields(c) {
				*f = v[i]
			}
			return nil
		},
	}
}

// litSuffix is a suffix without a number: lit when on(c), which set
// makes true.
func litSuffix(lit string, on func(c Config) bool, set func(c *Config)) token {
	return token{
		form: lit, lit: lit, what: lit,
		name: func(c Config) string {
			if on(c) {
				return lit
			}
			return ""
		},
		parse: func(c *Config, _ string) error { set(c); return nil },
	}
}

// numSuffix is the suffix lit{N} of an int field, left out when the field
// holds omit. Names never carry the default def (for a field that stores
// it as 0, omit is 0).
func numSuffix(what, lit string, omit, def int, field func(c *Config) *int) token {
	return token{
		form: lit + "{N}", lit: lit, num: true, what: what,
		name: func(c Config) string {
			if v := *field(&c); v != omit {
				return lit + strconv.Itoa(v)
			}
			return ""
		},
		parse: func(c *Config, t string) error {
			v, err := scanDefaultless(t, lit, def)
			if err != nil {
				return err
			}
			*field(c) = v
			return nil
		},
	}
}
