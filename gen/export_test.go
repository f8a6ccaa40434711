package gen

import "github.com/swigen/swigen/tiling"

// RenderWhole renders k's whole kernel from the skeleton templates, also
// where Render gives a thin unit, for the external tests that read a
// kernel's text (TestThinUnitSASS holds a thin unit to its machine code).
func RenderWhole(k tiling.Checked) (*Artifact, error) {
	set, err := kindTemplates(k.Config())
	if err != nil {
		return nil, err
	}
	return renderWith(set, k, k.Name(), nil, false)
}
