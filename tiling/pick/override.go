package pick

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
)

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
