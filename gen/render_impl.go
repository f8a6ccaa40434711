package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"text/template"

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
func renderWith(set *template.Template, cfg tiling.Config, name string, adjust func(*View)) (*Artifact, error) {
	tmpl := kernelTemplate(cfg)
	if set.Lookup(tmpl) == nil {
		return nil, fmt.Errorf("gen: %s: no template %s: kernel %s is not implemented for %s yet", cfg.Name(), tmpl, cfg.Kernel, cfg.Arch)
	}
	var view any
	var threads, smem int
	// 1-D grids: a cluster is ClusterM*ClusterN consecutive CTAs along x.
	cluster := [3]int{cfg.ClusterM * cfg.ClusterN, 1, 1}
	switch cfg.Arch {
	case tiling.ArchSM90a:
		v, err := newSM90View(cfg)
		if err != nil {
			return nil, err
		}
		if adjust != nil {
			adjust(v)
		}
		v.Name = name
		view, threads, smem = v, v.Threads, v.SmemBytes
	case tiling.ArchSM100a:
		if adjust != nil {
			return nil, fmt.Errorf("gen: %s: probes exist for sm_90a only", cfg.Name())
		}
		v, err := newSM100View(cfg)
		if err != nil {
			return nil, err
		}
		// The sm_100a kernel uses a 1-D grid: its cluster is ClusterM*ClusterN
		// consecutive CTAs along x.
		view, threads, smem, cluster = v, v.Threads, v.SmemBytes, v.ClusterDims
	default:
		return nil, fmt.Errorf("gen: %s: arch %s has no view builder", cfg.Name(), cfg.Arch)
	}
	var buf bytes.Buffer
	if err := set.ExecuteTemplate(&buf, tmpl, view); err != nil {
		return nil, fmt.Errorf("gen: render %s: %w", tmpl, err)
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("gen: %s: marshal config: %w", cfg.Name(), err)
	}
	sum := sha256.Sum256(cfgJSON)
	m := Manifest{
		Name:             name,
		Entry:            name,
		Arch:             cfg.Arch,
		Config:           cfg,
		ConfigHash:       hex.EncodeToString(sum[:8]),
		BlockThreads:     threads,
		ClusterDims:      cluster,
		DynamicSmemBytes: smem,
		Params:           kernelParams(cfg),
	}
	return &Artifact{Config: cfg, Name: name, Source: buf.Bytes(), Manifest: m}, nil
}

// kernelParams is the parameter layout of cfg's kernel.
func kernelParams(cfg tiling.Config) []Param {
	if cfg.Kernel == tiling.KernelBwdDSwiGLU {
		return bwdParams(cfg)
	}
	return sm90Params(cfg)
}

// bwdParams is the parameter layout of bwd_dswiglu kernels (both targets).
func bwdParams(cfg tiling.Config) []Param {
	tm := func(name, doc string) Param {
		return Param{Name: name, Kind: "tensormap", Size: 128, Align: 64, Doc: doc}
	}
	b := paramBoxes(cfg)
	p := []Param{
		tm("tmap_a", "dy [M,K] bf16/fp16, box "+b.a+", 128B swizzle"),
		tm("tmap_b", "W_down [I,K] (major_b=k) or [K,I] (major_b=mn), box "+b.b+", 128B swizzle"),
		tm("tmap_de", "de viewed as [M][2][I] (dims innermost first: I, 2, M), box "+b.de+", 128B swizzle"),
		tm("tmap_gde", "grad_de viewed as [M][2][I], box "+b.de+", 128B swizzle"),
	}
	if cfg.StoreOut {
		p = append(p, tm("tmap_out", "out [M,I], box "+b.out+", 128B swizzle"))
	}
	for _, n := range []string{"M", "I", "K"} {
		p = append(p, Param{Name: n, Kind: "i32", Size: 4, Align: 4})
	}
	return p
}

// boxStrings are a config's TMA boxes (gen.TMABoxes) as manifest text,
// innermost dimension first.
type boxStrings struct{ a, b, de, out string }

func paramBoxes(cfg tiling.Config) boxStrings {
	bs, err := TMABoxes(cfg)
	if err != nil {
		return boxStrings{"?", "?", "?", "?"}
	}
	f := func(b [3]int) string {
		if b[2] == 0 {
			return fmt.Sprintf("{%d, %d}", b[0], b[1])
		}
		return fmt.Sprintf("{%d, %d, %d}", b[0], b[1], b[2])
	}
	return boxStrings{f(bs.A), f(bs.B), f(bs.De), f(bs.Out)}
}
