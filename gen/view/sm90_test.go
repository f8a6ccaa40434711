package view

import (
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// newSM90 is the sm_90a view of c, checked at the boundary, for its
// manifest, named as Render names it.
func newSM90(c tiling.Config) (*SM90, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	m, err := manifest.New(k)
	if err != nil {
		return nil, err
	}
	m.Name, m.Entry = c.Name(), c.Name()
	return NewSM90(k, m)
}

// newSM100 is newSM90 for sm_100a.
func newSM100(c tiling.Config) (*SM100, error) {
	k, err := tiling.Check(c)
	if err != nil {
		return nil, err
	}
	m, err := manifest.New(k)
	if err != nil {
		return nil, err
	}
	m.Name, m.Entry = c.Name(), c.Name()
	return NewSM100(k, m)
}

// sm90Configs are the sm_90a configs of every kind in the tuning spaces
// and the catalog.
func sm90Configs() []tiling.Config {
	var cfgs []tiling.Config
	for _, k := range tiling.Kernels() {
		for _, d := range tiling.DTypes() {
			cfgs = append(cfgs, tiling.Space(k, tiling.ArchSM90a, d)...)
			cfgs = append(cfgs, tiling.SpaceStoreOut(k, tiling.ArchSM90a, d)...)
		}
	}
	for _, c := range tiling.Catalog() {
		if c.Arch == tiling.ArchSM90a {
			cfgs = append(cfgs, c)
		}
	}
	return append(cfgs, tilingtest.SM90Bwd()...)
}

// TestSM90OperandRingMap lays the TMA loads of one stage out as the view
// lists them, each the manifest's box (every CTA receives every load: its
// own or a peer's multicast), and checks that they fill tiling's stage
// exactly: A below the B offset, B above it, no byte twice, none missed,
// and as many bytes as the full barrier expects.
func TestSM90OperandRingMap(t *testing.T) {
	t.Parallel()
	for _, c := range sm90Configs() {
		v, err := newSM90(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		boxes, err := manifest.BoxesOf(c)
		if err != nil {
			t.Fatal(err)
		}
		owner := make([]int, v.Smem.OperandStage)
		write := func(off, n, id int) {
			for b := off; b < off+n; b++ {
				if b < 0 || b >= v.Smem.OperandStage || owner[b] != 0 {
					t.Fatalf("%s: load %d writes stage byte %d: outside the %d-byte stage or written twice", c.Name(), id, b, v.Smem.OperandStage)
				}
				owner[b] = id
			}
		}
		boxBytes := func(b [3]int) int { return b[0] * b[1] * v.Elem.Bytes }
		aSmem, bSmem := ints(t, v.A.Smem), ints(t, v.B.Smem)
		for i, off := range aSmem {
			write(off, boxBytes(boxes.A), 1+i)
		}
		for i, off := range bSmem {
			write(v.Smem.OperandB+off, boxBytes(boxes.B), 1000+i)
		}
		for b, o := range owner {
			if o == 0 || (b < v.Smem.OperandB) != (o < 1000) {
				t.Errorf("%s: stage byte %d (B at %d) loaded by %d (0: none; 1000 on: B)", c.Name(), b, v.Smem.OperandB, o)
				break
			}
		}
		if got := len(aSmem)*boxBytes(boxes.A) + len(bSmem)*boxBytes(boxes.B); got != v.Ring.TxBytes {
			t.Errorf("%s: the loads bring %d bytes, the full barrier expects %d", c.Name(), got, v.Ring.TxBytes)
		}
	}
}

// TestSM90Layout checks what the view builds on tiling's layout: each
// consumer's epilogue ring of Stages slots, the two filling tiling's
// epilogue region, and every swizzled tile 1024-byte aligned (descriptor
// base offset 0).
func TestSM90Layout(t *testing.T) {
	t.Parallel()
	for _, c := range sm90Configs() {
		v, err := newSM90(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		lay := v.Smem
		if ring := v.Epi.Stages * v.Epi.SlotBytes; ring != v.Epi.ConsumerBytes || 2*ring != lay.Epilogue {
			t.Errorf("%s: epilogue ring of %d bytes per consumer (view %d), tiling's region %d", c.Name(), ring, v.Epi.ConsumerBytes, lay.Epilogue)
		}
		for _, off := range []int{lay.OperandStage, lay.OperandB, lay.EpilogueOff, v.Epi.SlotBytes, v.Epi.GateOff, v.Epi.OutOff, v.Epi.LeftOff} {
			if off%1024 != 0 {
				t.Errorf("%s: swizzled tile offset %d is not 1024-byte aligned", c.Name(), off)
			}
		}
	}
}
