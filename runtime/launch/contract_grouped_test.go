package launch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// contractGroupedGolden pins the launches of the grouped kinds as
// contractGolden does the catalog's, pointer parameters included (by the
// buffer they point to): each kind's maps (moe_bwd_dswiglu's 3-D W_down
// map [E][K][I] with a one-expert box), parameters and grid.
const contractGroupedGolden = "testdata/contract_grouped.golden.jsonl"

// contractGroupedNames are the grouped configs planned: each kind, the
// backward with and without store_out, each kind on sm_100a (its grid
// and shared memory from the sm_100a launch rules; the backward also with
// the router score, its score and dscore_part pointers last) and moe_gemm
// with both B majors (its 3-D B map [E][N][K] or [E][K][N]).
var contractGroupedNames = []string{
	"moe_fwd_gateup_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong_bmn",
	"moe_bwd_dswiglu_sm90a_bf16_m64n128k64_s4_c1x1_pingpong_bmn_out",
	"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
	"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out",
	"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong",
	"moe_gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_bmn",
}

// groupedSize is one grouped launch's sizes: T tokens, K, I, E experts.
type groupedSize struct{ T, K, I, E int }

// contractGroupedSizes: one token, ragged sizes, the Qwen3-30B-A3B expert
// layer, and T = 0, which every grouped kind rejects.
var contractGroupedSizes = []groupedSize{{1, 64, 64, 1}, {300, 264, 200, 8}, {65536, 2048, 768, 128}, {0, 64, 64, 4}}

// groupedParam is one kernel parameter: a map (index), an i32 or a ptr
// (the buffer it points to).
type groupedParam struct {
	Kind   string `json:"kind"`
	Map    *int   `json:"map,omitempty"`
	Value  *int64 `json:"value,omitempty"`
	Buffer string `json:"buffer,omitempty"`
}

// groupedLaunch is one planned grouped launch, or the error planning gave.
type groupedLaunch struct {
	Config  string         `json:"config"`
	Size    groupedSize    `json:"size"`
	Error   string         `json:"error,omitempty"`
	Maps    []recordedMap  `json:"maps,omitempty"`
	Params  []groupedParam `json:"params,omitempty"`
	Grid    [3]uint32      `json:"grid"`
	Block   [3]uint32      `json:"block"`
	Cluster [3]uint32      `json:"cluster"`
	Smem    uint32         `json:"smem"`
}

// groupedArgs is the argument struct of cfg's grouped kind at z, every
// buffer a fake address.
func groupedArgs(cfg tiling.Config, z groupedSize) (Args, error) {
	b := fakeBuffer
	switch cfg.Kernel {
	case tiling.KernelMoEFwdGateUp:
		return MoEFwdGateUpArgs{T: z.T, K: z.K, I: z.I, E: z.E, X: b("x"), W: b("w"), Offs: b("offs"), Out: b("out"),
			Score: b("score")}, nil
	case tiling.KernelMoEBwdDSwiGLU:
		return MoEBwdArgs{T: z.T, K: z.K, I: z.I, E: z.E, Dy: b("dy"), WDown: b("w_down"), De: b("de"), Offs: b("offs"), GradDe: b("grad_de"), Out: b("out"),
			Score: b("score"), DScorePart: b("dscore_part")}, nil
	case tiling.KernelMoEGEMM:
		// The down projection of the layer z: the GEMM's K is I, its N is K.
		return MoEGemmArgs{T: z.T, N: z.K, K: z.I, E: z.E, A: b("a"), B: b("b"), Offs: b("offs"), C: b("c")}, nil
	}
	return nil, fmt.Errorf("no grouped args for kernel %q", cfg.Kernel)
}

// groupedSizes is the manifest sizes of cfg's kind at z (moe_gemm: the
// down projection of the layer z, as groupedArgs).
func groupedSizes(cfg tiling.Config, z groupedSize) manifest.Sizes {
	if cfg.Kernel == tiling.KernelMoEGEMM {
		return manifest.Sizes{"T": z.T, "N": z.K, "K": z.I, "E": z.E}
	}
	return manifest.Sizes{"T": z.T, "K": z.K, "I": z.I, "E": z.E}
}

// recordGrouped plans cfg at z on a kernel without a device and records
// what the plan would pass to the driver.
func recordGrouped(t *testing.T, cfg tiling.Config, z groupedSize) groupedLaunch {
	t.Helper()
	man, err := manifest.New(tilingtest.Check(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	k := &Kernel{Man: man, numSMs: contractSMs[cfg.Arch], clusters: contractClusters, encode: rec.encode}
	out := groupedLaunch{Config: cfg.Name(), Size: z}
	args, err := groupedArgs(cfg, z)
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.Plan(args)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Maps = rec.maps
	for i, a := range p.args {
		if man.Params[i].Kind == manifest.KindPtr {
			out.Params = append(out.Params, groupedParam{Kind: "ptr", Buffer: bufferName(cu.DevicePtr(*(*uint64)(a)))})
			continue
		}
		r := decodeArg(rec, man.Params[i].Kind, a)
		out.Params = append(out.Params, groupedParam{Kind: r.Kind, Map: r.Map, Value: r.Value})
	}
	lc := p.cfg
	out.Grid, out.Block, out.Cluster, out.Smem = lc.Grid, lc.Block, lc.Cluster, lc.SharedMem
	return out
}

// recordGroupedFromManifest derives the launch of cfg at z from its
// manifest JSON alone, as a loader in another language would.
func recordGroupedFromManifest(t *testing.T, cfg tiling.Config, z groupedSize) groupedLaunch {
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
	out := groupedLaunch{Config: cfg.Name(), Size: z}
	l, err := m.Resolve(groupedSizes(cfg, z), manifest.Device{SMs: contractSMs[cfg.Arch], Clusters: contractClusters})
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
			out.Params = append(out.Params, groupedParam{Kind: "tensormap", Map: &idx})
		case manifest.KindI32:
			v := int64(a.Value)
			out.Params = append(out.Params, groupedParam{Kind: "i32", Value: &v})
		case manifest.KindPtr:
			out.Params = append(out.Params, groupedParam{Kind: "ptr", Buffer: strings.ToLower(a.Buffer)})
		}
	}
	out.Maps = rec.maps
	u32 := func(d [3]int) [3]uint32 { return [3]uint32{uint32(d[0]), uint32(d[1]), uint32(d[2])} }
	out.Grid, out.Block, out.Cluster, out.Smem = u32(l.Grid), u32(l.Block), u32(l.Cluster), uint32(l.SmemBytes)
	return out
}

// recordGroupedAll records every grouped config at every size with rec,
// one JSON line per launch.
func recordGroupedAll(t *testing.T, rec func(*testing.T, tiling.Config, groupedSize) groupedLaunch) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, n := range contractGroupedNames {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range contractGroupedSizes {
			line, err := json.Marshal(rec(t, c, z))
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

// TestContractGroupedGolden: the grouped kinds' launches are exactly the
// golden's (go test ./runtime/launch -run ContractGroupedGolden -update
// rewrites it), and a loader reading only the manifest derives the same.
func TestContractGroupedGolden(t *testing.T) {
	got := recordGroupedAll(t, recordGrouped)
	path := filepath.FromSlash(contractGroupedGolden)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (go test -run ContractGroupedGolden -update writes it): %v", err)
	}
	if d := cmp.Diff(splitLines(want), splitLines(got)); d != "" {
		t.Errorf("launches differ from %s (-golden +now):\n%s", path, d)
	}
	if d := cmp.Diff(splitLines(want), splitLines(recordGroupedAll(t, recordGroupedFromManifest))); d != "" {
		t.Errorf("manifest launches differ from %s (-golden +manifest):\n%s", path, d)
	}
}
