// Package templates holds swigen's CUDA C++ templates as an embedded file
// system. Templates receive a typed view computed by package gen; they do no
// arithmetic and no architecture branching of their own.
package templates

import "embed"

// FS holds every template under cuda/: kernel templates (*.cu.tmpl) and the
// shared partials (*.cuh.tmpl) they instantiate.
//
//go:embed cuda/*.tmpl
var FS embed.FS
