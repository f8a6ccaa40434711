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
// and launch from it.
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
	boxes, err := manifest.BoxesOf(cfg)
	if err != nil {
		return nil, err
	}
	data, l, err := newView(cfg, m, adjust)
	if err != nil {
		return nil, err
	}
	if err := l.agrees(m, boxes); err != nil {
		return nil, fmt.Errorf("gen: %s: %w", cfg.Name(), err)
	}
	var buf bytes.Buffer
	if err := set.ExecuteTemplate(&buf, tmpl, data); err != nil {
		return nil, fmt.Errorf("gen: render %s: %w", tmpl, err)
	}
	return &Artifact{Config: cfg, Name: name, Source: buf.Bytes(), Manifest: m}, nil
}

// viewLaunch is what a view computed that the manifest also says: the
// launch shape and the boxes of the operand maps.
type viewLaunch struct {
	threads, smem int
	cluster       [3]int
	boxA, boxB    [3]int
}

// newView computes the view of cfg's arch for the launch contract m.
func newView(cfg tiling.Config, m manifest.Manifest, adjust func(*view.SM90)) (any, viewLaunch, error) {
	switch cfg.Arch {
	case tiling.ArchSM90a:
		v, err := view.NewSM90(cfg, m)
		if err != nil {
			return nil, viewLaunch{}, err
		}
		if adjust != nil {
			adjust(v)
		}
		// 1-D grid: a cluster is ClusterM*ClusterN consecutive CTAs along x.
		return v, viewLaunch{v.Threads, v.SmemBytes, [3]int{v.ClusterSize, 1, 1}, v.BoxA, v.BoxB}, nil
	case tiling.ArchSM100a:
		if adjust != nil {
			return nil, viewLaunch{}, fmt.Errorf("gen: %s: probes exist for sm_90a only", cfg.Name())
		}
		v, err := view.NewSM100(cfg, m)
		if err != nil {
			return nil, viewLaunch{}, err
		}
		return v, viewLaunch{v.Threads, v.SmemBytes, v.ClusterDims, v.BoxA, v.BoxB}, nil
	}
	return nil, viewLaunch{}, fmt.Errorf("gen: %s: arch %s has no view builder", cfg.Name(), cfg.Arch)
}

// agrees checks the view against the manifest: the kernel is compiled for
// the view's launch and loads with the view's boxes, the host launches and
// encodes as the manifest says.
func (l viewLaunch) agrees(m manifest.Manifest, b manifest.Boxes) error {
	if l.threads != m.BlockThreads || l.smem != m.DynamicSmemBytes || l.cluster != m.ClusterDims {
		return fmt.Errorf("the view's launch (%d threads, %d bytes of shared memory, cluster %v) is not the manifest's (%d, %d, %v)",
			l.threads, l.smem, l.cluster, m.BlockThreads, m.DynamicSmemBytes, m.ClusterDims)
	}
	if l.boxA != b.A || l.boxB != b.B {
		return fmt.Errorf("the view's boxes A %v B %v are not the manifest's A %v B %v", l.boxA, l.boxB, b.A, b.B)
	}
	return nil
}
