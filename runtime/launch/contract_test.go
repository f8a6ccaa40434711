package launch

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// contractGolden pins, for every catalog config and a few ragged shapes,
// the exact launch runtime/launch performs: the cuTensorMapEncodeTiled
// arguments of every map, the kernel parameters in order and the launch
// geometry. It was recorded before the launch contract moved into the
// manifest package, so a refactoring that changes any launch fails here.
const contractGolden = "testdata/contract.golden.jsonl"

// contractSMs and contractClusters stand in for the device: the SM count
// of an H200 (sm_90a) or a B200 (sm_100a), and a co-resident cluster
// count low enough that static 2-CTA-cluster grids are capped by it.
var contractSMs = map[tiling.Arch]int{tiling.ArchSM90a: 132, tiling.ArchSM100a: 148}

const contractClusters = 50

// contractShapes are the problem sizes every config is planned at (gemm
// reads them as M, N=I, K): one row, ragged sizes off every tile grid,
// and one shape every kind rejects.
var contractShapes = []tiling.Shape{
	{M: 1, K: 64, I: 64},
	{M: 300, K: 2048, I: 264},
	{M: 4000, K: 264, I: 3000},
	{M: 0, K: 12, I: 100},
}

// contractExtraNames are configs outside the catalog whose launches differ
// from every catalog entry's: sm_90a clusters split the shared operand's
// box; 64x32 epilogue sub-tiles take 64-byte boxes and swizzle.
var contractExtraNames = []string{
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k",
	"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_rn_g2_e64x32s4_out_l2k",
	"bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c2x1_pingpong",
	"gemm_sm90a_bf16_m128n128k64_s6_c1x2_pingpong",
	"fwd_gateup_sm90a_bf16_m128n128k64_s4_c2x1_pingpong_out",
	"fwd_down_sm90a_bf16_m128n256k64_s4_c1x2_cooperative",
}

// recordedMap is one cuTensorMapEncodeTiled call: its arguments, the
// global address named by the buffer it points into.
type recordedMap struct {
	Name        string   `json:"name"`
	Buffer      string   `json:"buffer"`
	DType       int      `json:"dtype"`
	Rank        int      `json:"rank"`
	Dims        []uint64 `json:"dims"`
	Strides     []uint64 `json:"strides"`
	Box         []uint32 `json:"box"`
	ElemStrides []uint32 `json:"elem_strides"`
	Interleave  int      `json:"interleave"`
	Swizzle     int      `json:"swizzle"`
	L2Promotion int      `json:"l2_promotion"`
	OOBFill     int      `json:"oob_fill"`
}

// recordedParam is one kernel parameter: a tensor map (by its index in
// Maps) or a 32-bit integer.
type recordedParam struct {
	Kind  string `json:"kind"`
	Map   *int   `json:"map,omitempty"`
	Value *int64 `json:"value,omitempty"`
}

// recordedLaunch is one planned launch, or the error planning gave.
type recordedLaunch struct {
	Config  string          `json:"config"`
	Shape   tiling.Shape    `json:"shape"`
	Error   string          `json:"error,omitempty"`
	Maps    []recordedMap   `json:"maps,omitempty"`
	Params  []recordedParam `json:"params,omitempty"`
	Grid    [3]uint32       `json:"grid"`
	Block   [3]uint32       `json:"block"`
	Cluster [3]uint32       `json:"cluster"`
	Smem    uint32          `json:"smem"`
}

// fakeBuffers are distinct, 256-byte aligned device addresses, one per
// argument buffer, so a recorded address names its buffer.
var fakeBuffers = map[string]cu.DevicePtr{}

func fakeBuffer(name string) cu.DevicePtr {
	if p, ok := fakeBuffers[name]; ok {
		return p
	}
	p := cu.DevicePtr(0x7f0000000000 + uint64(len(fakeBuffers)+1)<<32)
	fakeBuffers[name] = p
	return p
}

func bufferName(p cu.DevicePtr) string {
	for n, q := range fakeBuffers {
		if q == p {
			return n
		}
	}
	return fmt.Sprintf("%#x", uint64(p))
}

// recorder stands in for the driver's encoder: it validates like
// EncodeTiled and records the arguments. The descriptor of the map
// recorded j-th is 128 bytes of j+1 (fakeDescriptor), so that a packed
// parameter names the map it holds.
type recorder struct {
	maps []recordedMap
}

// fakeDescriptor is what the recorder encodes as the j-th map.
func fakeDescriptor(j int) []byte { return bytes.Repeat([]byte{byte(j + 1)}, cu.TensorMapSize) }

func (r *recorder) encode(p cu.TensorMapParams, name string) (*cu.TensorMap, error) {
	if err := p.Validate(name); err != nil {
		return nil, err
	}
	m := recordedMap{Name: name, Buffer: bufferName(p.Global), DType: int(p.DType), Rank: p.Rank,
		Dims: append([]uint64(nil), p.Dims[:p.Rank]...), Strides: append([]uint64{}, p.Strides[:p.Rank-1]...),
		Box: append([]uint32(nil), p.Box[:p.Rank]...), ElemStrides: append([]uint32(nil), p.ElemStrides[:p.Rank]...),
		Interleave: int(p.Interleave), Swizzle: int(p.Swizzle), L2Promotion: int(p.L2Promotion), OOBFill: int(p.OOBFill)}
	t := &cu.TensorMap{}
	copy(t.Bytes(), fakeDescriptor(len(r.maps)))
	r.maps = append(r.maps, m)
	return t, nil
}

// mapIndex is the recorded map whose descriptor desc is, or -1.
func (r *recorder) mapIndex(desc []byte) int {
	for j := range r.maps {
		if bytes.Equal(desc, fakeDescriptor(j)) {
			return j
		}
	}
	return -1
}

// contractConfigs are the catalog and the extra configs.
func contractConfigs(t *testing.T) []tiling.Config {
	t.Helper()
	cfgs := tiling.Catalog()
	for _, n := range contractExtraNames {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("extra config %s: %v", n, err)
		}
		cfgs = append(cfgs, c)
	}
	return cfgs
}

// recordLaunch plans cfg at shape s on a kernel without a device and
// records what the plan would pass to the driver.
func recordLaunch(t *testing.T, cfg tiling.Config, s tiling.Shape) recordedLaunch {
	t.Helper()
	man, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	k := &Kernel{Man: man, numSMs: contractSMs[cfg.Arch], clusters: contractClusters, encode: rec.encode}
	out := recordedLaunch{Config: cfg.Name(), Shape: s}
	p, err := planShape(k, cfg, s)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Maps = rec.maps
	for i, a := range p.args {
		out.Params = append(out.Params, decodeArg(rec, man.Params[i].Kind, a))
	}
	lc := p.cfg
	out.Grid, out.Block, out.Cluster, out.Smem = lc.Grid, lc.Block, lc.Cluster, lc.SharedMem
	return out
}

// planShape plans one launch of k's kind, every buffer a fake address.
func planShape(k *Kernel, cfg tiling.Config, s tiling.Shape) (*Plan, error) {
	b := fakeBuffer
	switch cfg.Kernel {
	case tiling.KernelBwdDSwiGLU:
		return k.Plan(BwdArgs{M: s.M, K: s.K, I: s.I, Dy: b("dy"), WDown: b("w_down"), De: b("de"), GradDe: b("grad_de"), Out: b("out")})
	case tiling.KernelGEMM:
		return k.Plan(GemmArgs{M: s.M, N: s.I, K: s.K, A: b("a"), B: b("b"), C: b("c")})
	case tiling.KernelFwdGateUp:
		return k.Plan(FwdGateUpArgs{M: s.M, K: s.K, I: s.I, X: b("x"), W: b("w"), De: b("de"), Out: b("out")})
	case tiling.KernelFwdDown:
		return k.Plan(FwdDownArgs{M: s.M, K: s.K, I: s.I, Out: b("out"), WDown: b("w_down"), Residual: b("residual"), Y: b("y")})
	}
	return nil, fmt.Errorf("no plan for kernel %q", cfg.Kernel)
}

// decodeArg reads one packed kernel argument of kind back from where it
// points: a recorded map's descriptor or a 32-bit value.
func decodeArg(rec *recorder, kind manifest.Kind, a unsafe.Pointer) recordedParam {
	switch kind {
	case manifest.KindTensorMap:
		if idx := rec.mapIndex(unsafe.Slice((*byte)(a), cu.TensorMapSize)); idx >= 0 {
			return recordedParam{Kind: "tensormap", Map: &idx}
		}
	case manifest.KindI32:
		v := int64(*(*int32)(a))
		return recordedParam{Kind: "i32", Value: &v}
	}
	return recordedParam{Kind: "unknown"}
}

// recordAll records every config at every contract shape, one JSON line
// per launch.
func recordAll(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, cfg := range contractConfigs(t) {
		for _, s := range contractShapes {
			line, err := json.Marshal(recordLaunch(t, cfg, s))
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

// TestContractGolden: runtime/launch plans every launch exactly as the
// golden records (go test ./runtime/launch -run ContractGolden -update
// rewrites it, which a launch-preserving change never needs).
func TestContractGolden(t *testing.T) {
	got := recordAll(t)
	path := filepath.FromSlash(contractGolden)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (go test -run ContractGolden -update writes it): %v", err)
	}
	if d := cmp.Diff(splitLines(want), splitLines(got)); d != "" {
		t.Errorf("launches differ from %s (-golden +now):\n%s", path, d)
	}
}

func splitLines(b []byte) []string {
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		out = append(out, string(l))
	}
	return out
}

// contractSizes are s as the sizes of cfg's kind (gemm: M, N=I, K).
func contractSizes(cfg tiling.Config, s tiling.Shape) manifest.Sizes {
	if cfg.Kernel == tiling.KernelGEMM {
		return manifest.Sizes{"M": s.M, "N": s.I, "K": s.K}
	}
	return manifest.Sizes{"M": s.M, "K": s.K, "I": s.I}
}

// recordFromManifest derives the launch of cfg at s from its manifest
// alone, after a round trip through JSON, as a loader in another language
// would, and records it like recordLaunch.
func recordFromManifest(t *testing.T, cfg tiling.Config, s tiling.Shape) recordedLaunch {
	t.Helper()
	built, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	out := recordedLaunch{Config: cfg.Name(), Shape: s}
	l, err := m.Resolve(contractSizes(cfg, s), manifest.Device{SMs: contractSMs[cfg.Arch], Clusters: contractClusters})
	if err != nil {
		out.Error = fmt.Sprintf("launch: %s: %v", m.Name, err)
		return out
	}
	rec := &recorder{}
	for _, a := range l.Args {
		switch a.Kind {
		case manifest.KindTensorMap:
			p, err := tensorMapParams(a.Map, fakeBuffer(strings.ToLower(a.Map.Buffer)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rec.encode(p, a.Map.Buffer); err != nil {
				t.Fatal(err)
			}
			idx := len(rec.maps) - 1
			out.Params = append(out.Params, recordedParam{Kind: "tensormap", Map: &idx})
		case manifest.KindI32:
			v := int64(a.Value)
			out.Params = append(out.Params, recordedParam{Kind: "i32", Value: &v})
		}
	}
	out.Maps = rec.maps
	u32 := func(d [3]int) [3]uint32 { return [3]uint32{uint32(d[0]), uint32(d[1]), uint32(d[2])} }
	out.Grid, out.Block, out.Cluster, out.Smem = u32(l.Grid), u32(l.Block), u32(l.Cluster), uint32(l.SmemBytes)
	return out
}

// TestContractFromManifest: the launch a loader derives from the manifest
// JSON alone equals the golden one, for every config and shape.
func TestContractFromManifest(t *testing.T) {
	want, err := os.ReadFile(filepath.FromSlash(contractGolden))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, cfg := range contractConfigs(t) {
		for _, s := range contractShapes {
			line, err := json.Marshal(recordFromManifest(t, cfg, s))
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	if d := cmp.Diff(splitLines(want), splitLines(buf.Bytes())); d != "" {
		t.Errorf("manifest launches differ from %s (-golden +manifest):\n%s", contractGolden, d)
	}
}
