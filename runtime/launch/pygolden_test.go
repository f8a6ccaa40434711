package launch

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// pyGoldenDir holds the goldens the Python runtime (python/swigen_rt) is
// tested against: what this package passes the driver, recorded here and
// replayed there (python/tests/test_golden.py).
const pyGoldenDir = "../../python/tests/testdata"

const pyGoldenDoc = "Written by go test ./runtime/launch -run PythonGolden -update; do not edit. " +
	"For every catalog config (and the contract test's extra cluster configs, and on sm_90a the grouped configs, planned at " +
	"routings whose rows per expert counts gives) of this arch, the manifest and, per launch, " +
	"the sizes and fake device buffers given and what runtime/launch's Plan passes the driver: each cuTensorMapEncodeTiled " +
	"call (enumerators as the driver's integers, arrays innermost first, strides in bytes), the packed parameters " +
	"(manifest.Pack; the descriptor of the j-th tensor map, counted in parameter order from 0, is 128 bytes of value j+1) " +
	"with each parameter's offset, and the launch's grid, block, cluster (zero: no cluster attribute) and dynamic shared " +
	"memory, on a device of device.sms SMs that holds device.clusters clusters at once; or the error planning gave."

// pyShapes are the sizes every config is planned at, as M, K, I (gemm: M,
// N=I, K): one row, ragged sizes off every tile grid (I an odd multiple of
// 8), the seed shape, and one shape every kind rejects.
var pyShapes = []tiling.Shape{
	{M: 1, K: 64, I: 64},
	{M: 777, K: 520, I: 1000},
	{M: 4000, K: 264, I: 3000},
	{M: 16384, K: 768, I: 4608},
	{M: 0, K: 12, I: 100},
}

// pyGroupedNames are the grouped (MoE) configs the sm_90a golden adds:
// ping-pong and cooperative, two tile heights, both dtypes, the forward's
// training variant and the backward's out variant (the op SwiGLUExperts
// runs; its variant without out has no PyTorch op), and both with the
// router score (its pointer and the backward's dscore partials).
var pyGroupedNames = []string{
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_cooperative",
	"moe_fwd_gateup_sm90a_bf16_m64n128k64_s8_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_fp16_m128n128k64_s6_c1x1_pingpong",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out",
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out_score",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out_score",
	// The grouped plain GEMM (swigen::moe_down: W_down [E,H,I] K-major).
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	// The K-grouped weight gradient (swigen::moe_wgrad: A and B MN-major).
	"moe_wgrad_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn",
}

// pyRouting is one grouped launch: the rows each expert gets (offs is
// their cumulative sums: T = the last, E = the count) and K, I. The
// parameters hold offs' address, not its values, so the routings differ
// in T and E; the Python test checks each sizes entry against its counts.
type pyRouting struct {
	Counts []int
	K, I   int
}

// pyRoutings: empty experts, one-token experts, ragged expert sizes
// around a tile (K and I off the tile grid), one expert of one row, and
// no rows at all, which the shape rule refuses.
var pyRoutings = []pyRouting{
	{Counts: []int{0, 37, 0, 0, 256, 5, 0, 90}, K: 264, I: 200},
	{Counts: []int{1, 1, 1, 1, 1, 1}, K: 72, I: 136},
	{Counts: []int{127, 128, 129, 255, 256, 257, 0}, K: 520, I: 1000},
	{Counts: []int{1}, K: 64, I: 64},
	{Counts: []int{0, 0, 0}, K: 64, I: 64},
}

// sizes are r's sizes for man: its I is the N of a kernel whose sizes
// name N (moe_gemm, moe_wgrad), not I.
func (r pyRouting) sizes(man manifest.Manifest) manifest.Sizes {
	t := 0
	for _, c := range r.Counts {
		t += c
	}
	s := manifest.Sizes{"T": t, "K": r.K, "I": r.I, "E": len(r.Counts)}
	if slices.Contains(man.Sizes, "N") {
		delete(s, "I")
		s["N"] = r.I
	}
	return s
}

// pyMisaligned is the seed shape again with the first buffer 8 bytes off
// TMA's 16-byte alignment: the host-side tensor-map check must refuse it.
var pyMisaligned = tiling.Shape{M: 16384, K: 768, I: 4608}

type pyMap struct {
	Param       string   `json:"param"`
	Buffer      string   `json:"buffer"`
	DType       int      `json:"dtype"`
	Rank        int      `json:"rank"`
	Global      uint64   `json:"global"`
	Dims        []uint64 `json:"dims"`
	Strides     []uint64 `json:"strides"`
	Box         []uint32 `json:"box"`
	ElemStrides []uint32 `json:"elem_strides"`
	Interleave  int      `json:"interleave"`
	Swizzle     int      `json:"swizzle"`
	L2Promotion int      `json:"l2_promotion"`
	OOBFill     int      `json:"oob_fill"`
}

type pyLaunch struct {
	Sizes manifest.Sizes `json:"sizes"`
	// Counts are a grouped launch's rows per expert (offs' differences).
	Counts       []int             `json:"counts,omitempty"`
	Buffers      map[string]uint64 `json:"buffers"`
	Error        string            `json:"error,omitempty"`
	Maps         []pyMap           `json:"maps,omitempty"`
	ParamsHex    string            `json:"params_hex,omitempty"`
	ParamOffsets []int             `json:"param_offsets,omitempty"`
	Grid         [3]uint32         `json:"grid"`
	Block        [3]uint32         `json:"block"`
	Cluster      [3]uint32         `json:"cluster"`
	Smem         uint32            `json:"smem"`
}

type pyConfig struct {
	Name     string            `json:"name"`
	Manifest manifest.Manifest `json:"manifest"`
	Launches []pyLaunch        `json:"launches"`
}

type pyGolden struct {
	Doc    string      `json:"doc"`
	Arch   tiling.Arch `json:"arch"`
	Device struct {
		SMs      int `json:"sms"`
		Clusters int `json:"clusters"`
	} `json:"device"`
	Configs []pyConfig `json:"configs"`
}

// pyRecorder records each encode with the parameter it is for.
type pyRecorder struct {
	rec  recorder
	maps []pyMap
}

func (r *pyRecorder) encode(p cu.TensorMapParams, name string) (*cu.TensorMap, error) {
	t, err := r.rec.encode(p, name)
	if err != nil {
		return nil, err
	}
	r.maps = append(r.maps, pyMap{Buffer: name, DType: int(p.DType), Rank: p.Rank, Global: uint64(p.Global),
		Dims: append([]uint64(nil), p.Dims[:p.Rank]...), Strides: append([]uint64{}, p.Strides[:p.Rank-1]...),
		Box: append([]uint32(nil), p.Box[:p.Rank]...), ElemStrides: append([]uint32(nil), p.ElemStrides[:p.Rank]...),
		Interleave: int(p.Interleave), Swizzle: int(p.Swizzle), L2Promotion: int(p.L2Promotion), OOBFill: int(p.OOBFill)})
	return t, nil
}

// pyBuffers are distinct 4 GiB-apart fake addresses, one per manifest
// buffer in order; misalign moves the first one 8 bytes.
func pyBuffers(m *manifest.Manifest, misalign bool) map[string]uint64 {
	bufs := map[string]uint64{}
	for i, b := range m.Buffers {
		bufs[b.Name] = 0x7f0000000000 + uint64(i+1)<<32
	}
	if misalign && len(m.Buffers) > 0 {
		bufs[m.Buffers[0].Name] += 8
	}
	return bufs
}

// pyRecord plans cfg's kernel at s with bufs through Plan, as a launch
// does, with the driver's encoder replaced by a recorder.
func pyRecord(t *testing.T, man manifest.Manifest, sms int, s tiling.Shape, misalign bool) pyLaunch {
	t.Helper()
	sizes := manifest.Sizes{"M": s.M, "K": s.K, "I": s.I}
	if man.Kernel == tiling.KernelGEMM {
		sizes = manifest.Sizes{"M": s.M, "N": s.I, "K": s.K}
	}
	return pyRecordSizes(t, man, sms, sizes, misalign)
}

// pyRecordSizes is pyRecord at sizes given by name.
func pyRecordSizes(t *testing.T, man manifest.Manifest, sms int, sizes manifest.Sizes, misalign bool) pyLaunch {
	t.Helper()
	bufs := pyBuffers(&man, misalign)
	out := pyLaunch{Sizes: sizes, Buffers: bufs}
	rec := &pyRecorder{}
	k := &Kernel{Man: man, numSMs: sms, clusters: contractClusters, encode: rec.encode}
	call := Call{Sizes: sizes, Buffers: map[string]cu.DevicePtr{}}
	for n, p := range bufs {
		call.Buffers[n] = cu.DevicePtr(p)
	}
	p, err := k.Plan(call)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	j := 0
	for i, prm := range man.Params {
		if prm.Kind == manifest.KindTensorMap {
			rec.maps[j].Param = man.Params[i].Name
			j++
		}
	}
	out.Maps = rec.maps
	out.ParamsHex = hex.EncodeToString(p.params)
	for _, a := range p.args {
		out.ParamOffsets = append(out.ParamOffsets, int(uintptr(a)-uintptr(unsafe.Pointer(&p.params[0]))))
	}
	lc := p.cfg
	out.Grid, out.Block, out.Cluster, out.Smem = lc.Grid, lc.Block, lc.Cluster, lc.SharedMem
	return out
}

// pyGoldens builds each arch's golden file.
func pyGoldens(t *testing.T) map[tiling.Arch][]byte {
	t.Helper()
	files := map[tiling.Arch]*pyGolden{}
	var archs []tiling.Arch
	cfgs := contractConfigs(t)
	for _, n := range pyGroupedNames {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	for _, cfg := range cfgs {
		g := files[cfg.Arch]
		if g == nil {
			g = &pyGolden{Doc: pyGoldenDoc, Arch: cfg.Arch}
			g.Device.SMs, g.Device.Clusters = contractSMs[cfg.Arch], contractClusters
			files[cfg.Arch] = g
			archs = append(archs, cfg.Arch)
		}
		man, err := manifest.New(tilingtest.Check(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		c := pyConfig{Name: cfg.Name(), Manifest: man}
		if cfg.Kernel.Grouped() {
			c.Launches = pyGroupedLaunches(t, man, g.Device.SMs)
			g.Configs = append(g.Configs, c)
			continue
		}
		for _, s := range pyShapes {
			c.Launches = append(c.Launches, pyRecord(t, man, g.Device.SMs, s, false))
		}
		c.Launches = append(c.Launches, pyRecord(t, man, g.Device.SMs, pyMisaligned, true))
		g.Configs = append(g.Configs, c)
	}
	out := map[tiling.Arch][]byte{}
	for _, a := range archs {
		b, err := json.MarshalIndent(files[a], "", " ")
		if err != nil {
			t.Fatal(err)
		}
		out[a] = append(b, '\n')
	}
	return out
}

// pyGroupedLaunches records a grouped kernel at every routing of
// pyRoutings, then at the first again with x misaligned.
func pyGroupedLaunches(t *testing.T, man manifest.Manifest, sms int) []pyLaunch {
	t.Helper()
	var out []pyLaunch
	for _, r := range pyRoutings {
		l := pyRecordSizes(t, man, sms, r.sizes(man), false)
		l.Counts = r.Counts
		out = append(out, l)
	}
	l := pyRecordSizes(t, man, sms, pyRoutings[0].sizes(man), true)
	l.Counts = pyRoutings[0].Counts
	return append(out, l)
}

func pyGoldenPath(a tiling.Arch) string {
	return filepath.Join(filepath.FromSlash(pyGoldenDir), fmt.Sprintf("golden_%s.json", a))
}

// TestPythonGolden: the Python runtime's goldens are what runtime/launch
// plans now, byte for byte (go test ./runtime/launch -run PythonGolden
// -update rewrites them; python3 -m unittest discover -s python/tests
// replays them).
func TestPythonGolden(t *testing.T) {
	got := pyGoldens(t)
	if len(got) != 2 {
		t.Fatalf("goldens for %d archs, want sm_90a and sm_100a", len(got))
	}
	for a, b := range got {
		path := pyGoldenPath(a)
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read golden (go test ./runtime/launch -run PythonGolden -update writes it): %v", err)
		}
		if string(want) != string(b) {
			t.Errorf("%s is stale: rerun go test ./runtime/launch -run PythonGolden -update (-golden +now):\n%s",
				path, cmp.Diff(splitLines(want), splitLines(b)))
		}
	}
}
