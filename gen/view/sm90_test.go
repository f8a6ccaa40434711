package view

import (
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// newSM90 is the sm_90a view of c for its manifest, named as Render names
// it.
func newSM90(c tiling.Config) (*SM90, error) {
	m, err := manifest.New(c)
	if err != nil {
		return nil, err
	}
	m.Name, m.Entry = c.Name(), c.Name()
	return NewSM90(c, m)
}

// newSM100 is newSM90 for sm_100a.
func newSM100(c tiling.Config) (*SM100, error) {
	m, err := manifest.New(c)
	if err != nil {
		return nil, err
	}
	m.Name, m.Entry = c.Name(), c.Name()
	return NewSM100(c, m)
}

// TestSM90ViewMatchesResourceModel checks that the layout the generator
// emits is the one tiling's resource model prunes with.
func TestSM90ViewMatchesResourceModel(t *testing.T) {
	t.Parallel()
	for _, c := range tilingtest.SM90Bwd() {
		if c.ClusterM*c.ClusterN != 1 {
			continue
		}
		v, err := newSM90(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		if v.SmemBytes != c.SmemBytes() {
			t.Errorf("%s: view smem %d bytes, tiling model %d", c.Name(), v.SmemBytes, c.SmemBytes())
		}
		if v.SmemBytes > 232448 {
			t.Errorf("%s: smem %d > 232448", c.Name(), v.SmemBytes)
		}
	}
}
