package gen

import "github.com/swigen/swigen/tiling"

// renderCfg checks c at the boundary, as RenderAll does, and renders it.
func renderCfg(c tiling.Config) (*Artifact, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	return Render(k)
}

// renderProbeCfg checks c and renders it instrumented with probe.
func renderProbeCfg(c tiling.Config, probe string) (*Artifact, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	return RenderProbe(k, probe)
}
