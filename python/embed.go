// Package python holds the pure-Python runtime swigen_rt as files, so the
// swigen binary can package it (swigen wheel) without the repository.
package python

import "embed"

// Runtime is python/swigen_rt: its modules and its py.typed marker.
//
//go:embed swigen_rt/*.py swigen_rt/py.typed
var Runtime embed.FS
