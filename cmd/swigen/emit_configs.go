package main

import (
	"errors"

	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// selection is emit's flags as the config selection reads them
// (pick.Request, where its rules live); --tuned's winners come from the
// results DB (tunedConfig).
func (o *emitOptions) selection() *pick.Request {
	r := o.Request
	r.TunedConfig = tunedConfig
	return &r
}

// configs resolves the flags to the configs to emit, plus notes for the
// user (pick.Request.Configs). Errors are usage errors.
func (o *emitOptions) configs() ([]tiling.Config, []string, error) { return o.selection().Configs() }

// heuristicReasons says which config the heuristic chose for each kind
// and arch, and why (pick.Request.HeuristicReasons).
func (o *emitOptions) heuristicReasons() []string { return o.selection().HeuristicReasons() }

// override applies the field flags given to every base config
// (pick.Request.Override).
func (o *emitOptions) override(base []tiling.Config) ([]tiling.Config, []string, error) {
	return o.selection().Override(base)
}

// selectionErr is err of a pick.Fixed selection with its bad input as a
// usage error (exit 2).
func selectionErr(err error) error {
	if u := (*pick.UsageError)(nil); errors.As(err, &u) {
		return usageError(u.Err)
	}
	return err
}
