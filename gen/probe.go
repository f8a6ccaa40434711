package gen

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"text/template"

	"github.com/swigen/swigen/gen/view"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// Probe is a measurement or test instrument built into a kernel at the
// product templates' hook points (templates/cuda/hooks.cuh.tmpl). Its
// template, templates/probes/<Name>.cuh.tmpl, redefines some hook_*
// templates; only RenderProbe parses it, so a shipped kernel never carries
// probe code. A probed kernel is named <config>_probe_<Name>.
type Probe struct {
	Name string
	// Doc says what the probe does, in a sentence.
	Doc string
	// ResultsRight: the probed kernel's outputs are the product kernel's
	// (verify can check them); otherwise they are wrong by design.
	ResultsRight bool
	// supports says why the probe cannot instrument a config (nil: it can).
	supports func(tiling.Config) error
	// adjust changes the sm_90a view for the probe.
	adjust func(*view.SM90)
	// trace is the layout of the record buffer the probe writes, if any;
	// the manifest carries it for the reader.
	trace *manifest.TraceLayout
}

// probes are the live instruments: the hang tests that callers survive a
// deadlocked kernel, trace times every tile's parts, and noepi and nomma
// split a kernel's time between its mainloop and its epilogue.
var probes = []Probe{
	{Name: "hang", Doc: "deadlocks on purpose (the in-kernel wait timeout traps it): tests that verify, bench and tune survive a hung kernel",
		supports: sm90Probe},
	// Under overlap, with no wgmma left to order the consumers' registers,
	// ptxas spills the pending tile's dout: nomma builds for the schedules
	// whose tile loop the hooks know.
	{Name: "nomma", Doc: "issues no wgmmas: the operand ring and the epilogue alone",
		supports: tileProbe},
	{Name: "noepi", Doc: "bwd_dswiglu: loads the epilogue's de but neither computes nor stores: the mainloop with the epilogue's loads",
		supports: bwdTileProbe, adjust: func(v *view.SM90) { v.Epi.ProducerStores = false }},
	{Name: "trace", ResultsRight: true, Doc: "records every consumer's per-tile timings (order wait, mainloop, epilogue, waits) for swigen bench",
		supports: tileProbe, trace: &manifest.DefaultTraceLayout, adjust: func(v *view.SM90) {
			v.Trace = manifest.DefaultTraceLayout
			v.Epi.Matrix = false // the counters take the registers ldmatrix addressing needs
		}},
	// epitrace keeps two counters, none in the mainloop, so the product's
	// ldmatrix path builds without spills at 128x192, where trace spills.
	{Name: "epitrace", ResultsRight: true, Doc: "records every consumer's per-tile epilogue and de-wait times only, on the product's data path, for swigen bench",
		supports: tileProbe, trace: &manifest.DefaultTraceLayout, adjust: func(v *view.SM90) { v.Trace = manifest.DefaultTraceLayout }},
}

// Probes lists the probes, by name.
func Probes() []Probe { return slices.Clone(probes) }

// ProbeNames lists the probes' names, for help texts and errors.
func ProbeNames() []string {
	names := make([]string, len(probes))
	for i, p := range probes {
		names[i] = p.Name
	}
	return names
}

// LookupProbe returns the probe called name.
func LookupProbe(name string) (Probe, error) {
	for _, p := range probes {
		if p.Name == name {
			return p, nil
		}
	}
	return Probe{}, fmt.Errorf("probe %q: want one of %s", name, strings.Join(ProbeNames(), ", "))
}

// Supports reports why p cannot instrument cfg, or nil when it can.
func (p Probe) Supports(cfg tiling.Config) error {
	if err := p.supports(cfg); err != nil {
		return fmt.Errorf("probe %s: %s: %w", p.Name, cfg.Name(), err)
	}
	return nil
}

// RenderProbe renders k instrumented with the probe called name. Like
// Render, it takes a config whose legality tiling.Check decided.
func RenderProbe(k tiling.Checked, name string) (*Artifact, error) {
	p, err := LookupProbe(name)
	if err != nil {
		return nil, err
	}
	cfg := k.Config()
	if err := p.Supports(cfg); err != nil {
		return nil, err
	}
	set, err := probeTemplates(cfg, p.Name)
	if err != nil {
		return nil, err
	}
	a, err := renderWith(set, k, manifest.ProbedName(cfg, p.Name), p.adjust, false)
	if err != nil {
		return nil, err
	}
	a.Manifest.Probe = p.Name
	if p.trace != nil {
		l := *p.trace
		a.Manifest.Trace = &l
	}
	return a, nil
}

// probeTemplates is the template set of cfg's kind and arch with the
// probe's hooks redefined, composed on a clone of the cached set. A probe
// may define hook_* templates only, each of them a hook the product
// declares.
func probeTemplates(cfg tiling.Config, name string) (*template.Template, error) {
	base, err := kindTemplates(cfg)
	if err != nil {
		return nil, err
	}
	file := "probes/" + name + ".cuh.tmpl"
	src, err := fs.ReadFile(templates.ProbesFS, file)
	if err != nil {
		return nil, fmt.Errorf("gen: probe %s: %w", name, err)
	}
	pt, err := template.New(file).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("gen: probe %s: parse: %w", name, err)
	}
	set, err := base.Clone()
	if err != nil {
		return nil, fmt.Errorf("gen: probe %s: %w", name, err)
	}
	for _, t := range pt.Templates() {
		if t.Name() == file {
			continue
		}
		if !strings.HasPrefix(t.Name(), "hook_") || base.Lookup(t.Name()) == nil {
			return nil, fmt.Errorf("gen: probe %s: %s defines %q, which is not a hook of the product templates", name, file, t.Name())
		}
		if _, err := set.AddParseTree(t.Name(), t.Tree); err != nil {
			return nil, fmt.Errorf("gen: probe %s: %w", name, err)
		}
	}
	return set, nil
}

func sm90Probe(c tiling.Config) error {
	if c.Arch != tiling.ArchSM90a {
		return fmt.Errorf("probes exist for sm_90a only")
	}
	return nil
}

// tileProbe: the trace's hooks sit in the consumers' per-tile loop, which
// the overlap schedule replaces with its own.
func tileProbe(c tiling.Config) error {
	if err := sm90Probe(c); err != nil {
		return err
	}
	if c.Schedule != tiling.PingPong && c.Schedule != tiling.Cooperative {
		return fmt.Errorf("schedule %s: the probe exists for pingpong and cooperative", c.Schedule)
	}
	return nil
}

func bwdTileProbe(c tiling.Config) error {
	if err := tileProbe(c); err != nil {
		return err
	}
	if c.Kernel != tiling.KernelBwdDSwiGLU {
		return fmt.Errorf("kernel %s: the probe exists for bwd_dswiglu", c.Kernel)
	}
	if c.EpiPipe {
		// Its hook releases a slot and skips the sub-tile; the pipelined
		// epilogue has loaded the next one by then.
		return fmt.Errorf("epi_pipe: the probe exists for the unpipelined epilogue")
	}
	return nil
}
