package gen

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/swigen/swigen/gen/view"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

var (
	tmplOnce sync.Once
	tmplSet  *template.Template
	tmplErr  error
)

// loadTemplates parses every template of the embedded FS once.
func loadTemplates() (*template.Template, error) {
	tmplOnce.Do(func() {
		tmplSet, tmplErr = template.New("swigen").Option("missingkey=error").ParseFS(templates.FS, "cuda/*.tmpl")
		if tmplErr != nil {
			tmplErr = fmt.Errorf("gen: parse templates: %w", tmplErr)
		}
	})
	return tmplSet, tmplErr
}

// kernelTemplate names the template that renders cfg.
func kernelTemplate(cfg tiling.Config) string {
	return fmt.Sprintf("%s_%s.cu.tmpl", cfg.Kernel, strings.ReplaceAll(string(cfg.Arch), "_", ""))
}

func render(cfg tiling.Config) (*Artifact, error) {
	set, err := loadTemplates()
	if err != nil {
		return nil, err
	}
	return renderWith(set, cfg, cfg.Name(), nil)
}

// renderWith renders cfg with the template set set under the kernel name
// name; adjust, when set, changes the sm_90a view first (a probe's needs).
// The manifest comes first: the view takes the kernel's name, signature
// and launch shape from it, so the kernel is compiled for the launch the
// host makes.
func renderWith(set *template.Template, cfg tiling.Config, name string, adjust func(*view.SM90)) (*Artifact, error) {
	tmpl := kernelTemplate(cfg)
	if set.Lookup(tmpl) == nil {
		return nil, fmt.Errorf("gen: %s: no template %s: kernel %s is not implemented for %s yet", cfg.Name(), tmpl, cfg.Kernel, cfg.Arch)
	}
	m, err := manifest.New(cfg)
	if err != nil {
		return nil, err
	}
	m.Name, m.Entry = name, name
	data, err := newView(cfg, m, adjust)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := set.ExecuteTemplate(&buf, tmpl, data); err != nil {
		return nil, fmt.Errorf("gen: render %s: %w", tmpl, err)
	}
	return &Artifact{Config: cfg, Name: name, Source: buf.Bytes(), Manifest: m}, nil
}

// newView computes the view of cfg's arch for the launch contract m.
func newView(cfg tiling.Config, m manifest.Manifest, adjust func(*view.SM90)) (any, error) {
	switch cfg.Arch {
	case tiling.ArchSM90a:
		v, err := view.NewSM90(cfg, m)
		if err != nil {
			return nil, err
		}
		if adjust != nil {
			adjust(v)
		}
		return v, nil
	case tiling.ArchSM100a:
		if adjust != nil {
			return nil, fmt.Errorf("gen: %s: probes exist for sm_90a only", cfg.Name())
		}
		return view.NewSM100(cfg, m)
	}
	return nil, fmt.Errorf("gen: %s: arch %s has no view builder", cfg.Name(), cfg.Arch)
}
