// Package templates holds swigen's CUDA C++ templates as an embedded file
// system. Templates receive a typed view computed by package gen/view; they
// do no arithmetic and no architecture branching of their own.
package templates

import "embed"

// FS holds every product template under cuda/: kernel templates (*.cu.tmpl)
// and the shared partials (*.cuh.tmpl) they instantiate, among them the
// hook points (cuda/hooks.cuh.tmpl), which render to nothing.
//
//go:embed cuda/*.tmpl
var FS embed.FS

// ProbesFS holds the probes under probes/: one file per probe, each
// redefining some of the hook_* templates. Only gen's probe renderer parses
// them; a shipped kernel never contains probe code.
//
//go:embed probes/*.tmpl
var ProbesFS embed.FS
