package tiling

import (
	"errors"
	"fmt"
	"strings"
)

// Override is a partial Config: the knobs a user set explicitly (emit's
// --tile, --stages, ... flags; see Knobs), applied over a base config
// (the heuristic's, or a tuned winner) by Apply. The zero Override sets
// nothing; Set sets one knob from its flag value. A schedule set is
// strict: Apply never replaces it. A knob of one arch (l2k: sm_90a,
// clc-stages: sm_100a) leaves the configs of the other archs alone, so
// one Override can serve a list of archs.
type Override struct {
	v   Config // the values of the knobs set
	set uint64 // bit i: knobs[i] is set
}

// Set sets the knob called flag (Knob.Flag) from v, a value of its flag
// (for a list flag, one of its words). An error names the value and the
// rule, and leaves o as it was.
func (o *Override) Set(flag, v string) error {
	i := knobIndex(flag)
	if i < 0 {
		var names []string
		for _, k := range knobs {
			names = append(names, k.flag)
		}
		return fmt.Errorf("tiling: no knob %q (knobs: %s)", flag, strings.Join(names, ", "))
	}
	c := o.v
	if err := knobs[i].val.parse(flag, v, &c); err != nil {
		return err
	}
	o.v, o.set = c, o.set|1<<i
	return nil
}

// has reports whether o sets the knob called flag.
func (o Override) has(flag string) bool {
	i := knobIndex(flag)
	return i >= 0 && o.set&(1<<i) != 0
}

// IsZero reports whether o sets no field.
func (o Override) IsZero() bool { return o.set == 0 }

// Apply returns base with the fields o sets, plus a note for each field
// o does not set that Apply changed anyway. Unset fields keep the base's
// value except where it only made sense with the fields o replaces:
//
//   - The epilogue sub-tile follows the tile and schedule
//     (DefaultEpilogue) unless o sets it or the base's was not the
//     default.
//   - Stages drop to the deepest operand ring that fits in shared memory
//     (MaxStages) when the base's no longer fits.
//   - A schedule o does not set gives way when the result fails Validate
//     or Implemented with it: the arch's general schedules
//     (fallbackSchedules) are tried in order, each with the base's cluster
//     and then the smallest one the schedule takes (unless o sets the
//     cluster), and the first config that validates and is implemented
//     wins. The heuristic's sm_100a 2cta, for one, needs tile M 256; a
//     user who asks for a 128-row tile gets 1cta.
//
// Fields o sets are never changed. When no candidate works, Apply returns
// the config with the base's schedule, whose Validate error then says what
// is wrong with what was asked for.
func (o Override) Apply(base Config) (Config, []string) {
	if o.IsZero() {
		return base, nil
	}
	asked := o.apply(base)
	first := o.follow(base, asked)
	if o.has("schedule") || usable(first) {
		return first, o.notes(asked, first, "")
	}
	why := problem(first)
	for _, s := range fallbackSchedules(base.Arch) {
		for _, cl := range o.clusters(asked, s) {
			if s == asked.Schedule && cl == [2]int{asked.ClusterM, asked.ClusterN} {
				continue // that is first
			}
			c := asked
			c.Schedule, c.ClusterM, c.ClusterN = s, cl[0], cl[1]
			c = o.follow(base, c)
			if usable(c) {
				return c, o.notes(asked, c, why)
			}
		}
	}
	return first, nil
}

// apply returns c with exactly the knobs o sets, each where it applies
// (its arch).
func (o Override) apply(c Config) Config {
	for i, k := range knobs {
		if o.set&(1<<i) != 0 && (k.arch == "" || c.Arch == k.arch) {
			k.val.apply(&c, o.v)
		}
	}
	return c
}

// follow brings the fields o does not set in line with c's tile and
// schedule: the default epilogue sub-tile, and stages that fit.
func (o Override) follow(base, c Config) Config {
	if !o.has("epi") {
		bm, bn, _ := DefaultEpilogue(base.Arch, base.Schedule, base.TileM)
		if base.EpiM == bm && base.EpiN == bn {
			c.EpiM, c.EpiN, _ = DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
		}
	}
	if !o.has("stages") {
		if ms := c.MaxStages(); ms > 0 && c.Stages > ms {
			c.Stages = ms
		}
	}
	return c
}

// clusters are the cluster shapes tried with fallback schedule s. A
// cluster o sets is the only one. Otherwise the asked-for cluster comes
// first, unless it is just the least its own schedule takes (2cta's CTA
// pair, or 1x1): then s's least comes first, so 2cta giving way to 1cta
// does not keep the pair.
func (o Override) clusters(asked Config, s Schedule) [][2]int {
	own := [2]int{asked.ClusterM, asked.ClusterN}
	if o.has("cluster") {
		return [][2]int{own}
	}
	least := leastCluster(s)
	switch {
	case own == least:
		return [][2]int{own}
	case own == leastCluster(asked.Schedule):
		return [][2]int{least, own}
	}
	return [][2]int{own, least}
}

// leastCluster is the smallest cluster schedule s takes.
func leastCluster(s Schedule) [2]int {
	if s == TwoCTA {
		return [2]int{2, 1} // the CTA pair of cta_group::2
	}
	return [2]int{1, 1}
}

// notes describes the fields of got that differ from asked although o
// does not set them (the epilogue sub-tile aside: it always follows).
// why is the reason the asked-for schedule gave way, if it did.
func (o Override) notes(asked, got Config, why string) []string {
	var changed []string
	if got.Schedule != asked.Schedule {
		changed = append(changed, fmt.Sprintf("schedule %s instead of %s", got.Schedule, asked.Schedule))
	}
	if got.ClusterM != asked.ClusterM || got.ClusterN != asked.ClusterN {
		changed = append(changed, fmt.Sprintf("cluster %dx%d instead of %dx%d", got.ClusterM, got.ClusterN, asked.ClusterM, asked.ClusterN))
	}
	if got.Stages != asked.Stages {
		changed = append(changed, fmt.Sprintf("stages %d instead of %d (the deepest ring that fits)", got.Stages, asked.Stages))
	}
	if len(changed) == 0 {
		return nil
	}
	n := fmt.Sprintf("%s %s takes %s: %s", got.Kernel, got.Arch, got.Name(), strings.Join(changed, ", "))
	if why != "" {
		n += fmt.Sprintf(" (%s rejects the given fields: %s)", asked.Schedule, why)
	}
	return []string{n}
}

// fallbackSchedules are the schedules a schedule gives way to, in order
// of preference: the general ones of arch a. The special-purpose sm_90a
// schedule (overlap) is taken only when asked for.
func fallbackSchedules(a Arch) []Schedule {
	switch a {
	case ArchSM90a:
		return []Schedule{Cooperative, PingPong}
	case ArchSM100a:
		return []Schedule{OneCTA, TwoCTA}
	}
	return nil
}

// usable reports whether c passes Check.
func usable(c Config) bool { return legality(c) == nil }

// problem is the first reason c is not usable, for a note.
func problem(c Config) string {
	err := legality(c)
	var ve *ValidationError
	switch {
	case errors.As(err, &ve) && len(ve.Problems) > 0:
		return ve.Problems[0].String()
	case err != nil:
		return err.Error()
	}
	return ""
}
