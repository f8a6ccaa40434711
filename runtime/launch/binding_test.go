package launch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// testBinding returns a Binding of cfg as generated bindings would hold
// it, with a fake cubin.
func testBinding(t *testing.T, cfg tiling.Config) *Binding {
	t.Helper()
	m, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	cubin := []byte("fake cubin of " + m.Name)
	sum := sha256.Sum256(cubin)
	return &Binding{
		Name: m.Name, Arch: cfg.Arch, ConfigHash: m.ConfigHash, ParamLayout: manifest.ParamLayout(m.Params),
		CubinSHA256: hex.EncodeToString(sum[:]), Manifest: js, Cubin: cubin,
	}
}

func heuristicCfg(t *testing.T, a tiling.Arch) tiling.Config {
	t.Helper()
	c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBindingCheck(t *testing.T) {
	t.Parallel()
	h90 := heuristicCfg(t, tiling.ArchSM90a)
	other := h90
	other.Stages--
	otherB := testBinding(t, other)
	for _, tt := range []struct {
		name  string
		edit  func(b *Binding)
		wants []string // substrings of the error; none for success
	}{
		{"fresh", func(*Binding) {}, nil},
		{"manifest of another config", func(b *Binding) { b.Manifest = otherB.Manifest }, []string{"embedded manifest is for"}},
		{"config hash changed", func(b *Binding) {
			b.Manifest = bytes.Replace(b.Manifest, []byte(b.ConfigHash), []byte("0123456789abcdef"), 1)
		}, []string{"stale bindings", "config hash 0123456789abcdef", "generated for " + testBinding(t, h90).ConfigHash, "go generate"}},
		{"params changed", func(b *Binding) { b.ParamLayout = "M:i32:4/4" }, []string{"stale bindings", "parameters", `"M:i32:4/4"`}},
		{"cubin changed", func(b *Binding) { b.Cubin = []byte("another cubin") }, []string{"stale bindings", "embedded cubin has sha256", "generated for " + testBinding(t, h90).CubinSHA256}},
		{"no cubin", func(b *Binding) { b.Cubin, b.CubinSHA256 = nil, "" }, []string{"no cubin embedded", "without a CUDA compiler"}},
		{"bad json", func(b *Binding) { b.Manifest = []byte("{") }, []string{"embedded manifest"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := testBinding(t, h90)
			tt.edit(b)
			m, err := b.Check()
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if m.Name != b.Name || m.ConfigHash != b.ConfigHash {
					t.Errorf("Check returned manifest %s/%s", m.Name, m.ConfigHash)
				}
				return
			}
			if err == nil {
				t.Fatal("Check succeeded, want an error")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestSelectBinding(t *testing.T) {
	t.Parallel()
	b90, b100 := testBinding(t, heuristicCfg(t, tiling.ArchSM90a)), testBinding(t, heuristicCfg(t, tiling.ArchSM100a))
	src90 := *b90
	src90.Cubin, src90.CubinSHA256 = nil, ""
	for _, tt := range []struct {
		name         string
		major, minor int
		bs           []*Binding
		want         *Binding
		errs         []string
	}{
		{"h200 picks sm_90a", 9, 0, []*Binding{b100, b90}, b90, nil},
		{"b200 picks sm_100a", 10, 0, []*Binding{b100, b90}, b100, nil},
		{"no sm_100a embedded", 10, 0, []*Binding{b90}, nil, []string{"no cubin for device GPU-X", "compute capability 10.0", "needs sm_100a", "embedded: sm_90a", "--arch sm_100a"}},
		{"unsupported device", 8, 0, []*Binding{b100, b90}, nil, []string{"device GPU-X has compute capability 8.0", "embedded: sm_100a, sm_90a"}},
		{"source only", 9, 0, []*Binding{&src90}, nil, []string{"GPU-X", "9.0", "needs sm_90a", "without a CUDA compiler"}},
		{"nothing embedded", 9, 0, nil, nil, []string{"embedded: none"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SelectBinding("GPU-X", tt.major, tt.minor, tt.bs)
			if len(tt.errs) == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("SelectBinding = %v, %v; want %s", got, err, tt.want.Name)
				}
				return
			}
			if err == nil {
				t.Fatalf("SelectBinding = %s, want an error", got.Name)
			}
			for _, w := range tt.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
