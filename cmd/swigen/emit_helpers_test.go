package main

import "github.com/swigen/swigen/tiling"

// configs resolves o's flags to the configs to emit, as emit does.
func (o *emitOptions) configs() ([]tiling.Config, []string, error) { return o.lib().Configs() }

// override applies o's field flags to every base config, as emit does.
func (o *emitOptions) override(base []tiling.Config) ([]tiling.Config, []string, error) {
	return o.lib().Override(base)
}
