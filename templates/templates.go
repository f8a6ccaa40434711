// Package templates holds swigen's CUDA sources as embedded file systems:
// the text templates a kernel is rendered from (cuda/), the probes
// (probes/) and the versioned CUDA headers a thin unit includes
// (include/). Templates receive a typed view computed by package gen/view;
// they do no arithmetic and no architecture branching of their own.
package templates

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

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

// IncludeFS holds the versioned CUDA library under include/, one flat
// directory whose file names carry the version (swigen_v1_*), as a unit
// includes them: a thin unit is compiled, and emitted, with them written
// beside it, so a build depends on swigen's binary alone, never on files
// of the machine.
//
//go:embed include
var IncludeFS embed.FS

// IncludeDir is the directory of IncludeFS that a unit's include paths are
// relative to.
const IncludeDir = "include"

// Include is IncludeFS below IncludeDir: the headers by the paths a unit
// includes them with.
func Include() fs.FS {
	sub, err := fs.Sub(IncludeFS, IncludeDir)
	if err != nil {
		// fs.Sub fails only on an invalid path; IncludeDir is a constant.
		panic(err)
	}
	return sub
}

// pragmaOnce ends a header's preamble: what follows is its body.
const pragmaOnce = "#pragma once\n"

// HeaderBody is the body of header path (relative to IncludeDir): its text
// after the #pragma once line, without the blank lines around it. A
// skeleton template pastes a body where a thin unit includes the header,
// so both compile one text. It fails when the header has no #pragma once
// line or its body holds "{{", which the template parser would read as an
// action.
func HeaderBody(path string) (string, error) {
	return headerBodyOf(Include(), path)
}

// headerBodyOf is HeaderBody over the headers of fsys.
func headerBodyOf(fsys fs.FS, path string) (string, error) {
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return "", fmt.Errorf("templates: header %s: %w", path, err)
	}
	_, body, ok := strings.Cut(string(b), pragmaOnce)
	if !ok {
		return "", fmt.Errorf("templates: header %s: no %q line: a header's body starts after it", path, strings.TrimSpace(pragmaOnce))
	}
	if strings.Contains(body, "{{") {
		return "", fmt.Errorf("templates: header %s: its body holds \"{{\", which a template would read as an action", path)
	}
	return strings.TrimSpace(body), nil
}
