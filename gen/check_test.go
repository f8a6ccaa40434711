package gen

import (
	"testing"

	"github.com/swigen/swigen/gen/view"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// renderCfg checks c at the boundary, as RenderAll does, and renders it.
func renderCfg(c tiling.Config) (*Artifact, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	return Render(k)
}

// renderSource parses the config name and renders it (renderCfg),
// failing t on either error: the source text the simulations read.
func renderSource(t *testing.T, name string) string {
	t.Helper()
	c, err := tiling.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := renderCfg(c)
	if err != nil {
		t.Fatalf("%s: Render: %v", name, err)
	}
	return string(a.Source)
}

// renderWholeCfg checks c and renders its whole kernel from the skeleton
// templates, also where Render gives a thin unit: the text the source
// checks read (TestThinUnitSASS holds a thin unit to its machine code).
func renderWholeCfg(c tiling.Config) (*Artifact, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	return RenderWhole(k)
}

// renderProbeCfg checks c and renders it instrumented with probe.
func renderProbeCfg(c tiling.Config, probe string) (*Artifact, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	return RenderProbe(k, probe)
}

// TestRenderZeroChecked: the zero Checked (no Check behind it) is an
// error, not a panic, in Render and in both views.
func TestRenderZeroChecked(t *testing.T) {
	t.Parallel()
	if _, err := Render(tiling.Checked{}); err == nil {
		t.Error("Render(zero Checked) succeeded")
	}
	if _, err := RenderProbe(tiling.Checked{}, "hang"); err == nil {
		t.Error("RenderProbe(zero Checked) succeeded")
	}
	if _, err := view.NewSM90(tiling.Checked{}, manifest.Manifest{}); err == nil {
		t.Error("NewSM90(zero Checked) succeeded")
	}
	if _, err := view.NewSM100(tiling.Checked{}, manifest.Manifest{}); err == nil {
		t.Error("NewSM100(zero Checked) succeeded")
	}
}
