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
	archNotes, err := o.checkKnobArches(arches)
	if err != nil {
		return nil, nil, err
	}
	notes = append(notes, archNotes...)
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

// checkKnobArches checks the field flags given that apply to one arch only
// (--l2k: sm_90a's TMA cache hint; --clc-stages: sm_100a's tile
// scheduler), which would otherwise be dropped without a word: an error
// when no selected config has the arch, a note when some lack it. An
// empty value of any field flag is an error too.
func (o *Request) checkKnobArches(arches []tiling.Arch) ([]string, error) {
	var notes []string
	for _, k := range tiling.Knobs() {
		name := k.Flag()
		if !o.Changed[name] {
			continue
		}
		if words, ok := o.Fields[name]; ok && (len(words) == 0 || slices.Contains(words, "")) {
			return nil, fmt.Errorf("--%s: empty value; give one, or leave the flag out", name)
		}
		if k.Arch() == "" {
			continue
		}
		var other []string
		for _, a := range Uniq(arches) {
			if a != k.Arch() {
				other = append(other, string(a))
			}
		}
		switch {
		case len(other) == len(Uniq(arches)):
			return nil, fmt.Errorf("--%s applies to %s configs only; the selected arch is %s (add --arch %s)", name, k.Arch(), strings.Join(other, ", "), k.Arch())
		case len(other) > 0:
			notes = append(notes, fmt.Sprintf("--%s does not apply to %s (a %s knob); it keeps its heuristic's", name, strings.Join(other, ", "), k.Arch()))
		}
	}
	return notes, nil
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
