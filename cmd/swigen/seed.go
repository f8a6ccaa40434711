package main

import (
	"fmt"
	"strconv"
	"time"
)

// seedFlag is a --seed whose default is a fresh random seed. Help shows
// the default as "random" (a number there would change on every
// invocation and look like a fixed default); the seed a run used is
// printed so the run can be repeated with --seed.
type seedFlag struct {
	set bool
	v   uint64
}

func (s *seedFlag) String() string {
	if !s.set {
		return "random"
	}
	return strconv.FormatUint(s.v, 10)
}

// Set takes a uint64 (decimal, or 0x/0o/0b prefixed) or "random".
func (s *seedFlag) Set(v string) error {
	if v == "random" {
		*s = seedFlag{}
		return nil
	}
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return fmt.Errorf("want an unsigned 64-bit integer or random")
	}
	s.v, s.set = n, true
	return nil
}

func (s *seedFlag) Type() string { return "seed" }

// Seed returns the given seed, or draws a random one on the first call
// and keeps it.
func (s *seedFlag) Seed() uint64 {
	if !s.set {
		s.v, s.set = uint64(time.Now().UnixNano()), true
	}
	return s.v
}
