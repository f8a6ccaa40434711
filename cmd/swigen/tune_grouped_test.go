package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// TestTuneRunGrouped: a grouped kind tunes at M,K,I,E (moe_gemm M,N,K,E)
// with a routing, every candidate of its space after --filter runs (no
// prune), and the DB key records E and the routing.
func TestTuneRunGrouped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		kind     tiling.Kernel
		shape    tiling.Shape
		experts  int
		routing  string
		storeOut bool
	}{
		{[]string{"--kernel", "moe_fwd_gateup", "--shape", "65536,2048,768,128", "--filter", "m128n128k"}, tiling.KernelMoEFwdGateUp, tiling.Shape{M: 65536, K: 2048, I: 768}, 128, tune.RoutingUniform, false},
		{[]string{"--kernel", "moe_fwd_gateup", "--store-out", "--shape", "65536,2048,768,128", "--routing", "zipf"}, tiling.KernelMoEFwdGateUp, tiling.Shape{M: 65536, K: 2048, I: 768}, 128, tune.RoutingZipf, true},
		{[]string{"--kernel", "moe_bwd_dswiglu", "--shape", "32768,7168,2048,256", "--filter", "pingpong"}, tiling.KernelMoEBwdDSwiGLU, tiling.Shape{M: 32768, K: 7168, I: 2048}, 256, tune.RoutingUniform, false},
		{[]string{"--kernel", "moe_bwd_dswiglu", "--store-out", "--shape", "32768,7168,2048,256"}, tiling.KernelMoEBwdDSwiGLU, tiling.Shape{M: 32768, K: 7168, I: 2048}, 256, tune.RoutingUniform, true},
		{[]string{"--kernel", "moe_gemm", "--shape", "32768,7168,2048,256", "--max", "3"}, tiling.KernelMoEGEMM, tiling.Shape{M: 32768, K: 2048, I: 7168}, 256, tune.RoutingUniform, false},
	}
	for _, tt := range tests {
		db := filepath.Join(t.TempDir(), "tune.json")
		o, err := parseTune(t, append([]string{"--db", db, "--screen-keep", "0"}, tt.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		var stdout, stderr bytes.Buffer
		if err := runTune(context.Background(), &env{stdout: &stdout, stderr: &stderr}, o, fakeTuneDeps(t, "", &runs)); err != nil {
			t.Fatalf("%v: %v\n%s", tt.args, err, stderr.String())
		}
		for _, want := range []string{fmt.Sprintf("E=%d, %s routing", tt.experts, tt.routing), "baseline (" + tune.GroupedBaseline} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%v: stdout lacks %q:\n%s", tt.args, want, stdout.String())
			}
		}
		ro, _ := o.validate()
		space := tiling.Space(tt.kind, tiling.ArchSM90a, tiling.BF16)
		if tt.storeOut {
			space = tiling.SpaceStoreOut(tt.kind, tiling.ArchSM90a, tiling.BF16)
		}
		sel, _ := tune.Select(space, tune.Selection{Filter: ro.Filter, Max: ro.Max})
		if len(runs) != len(sel) || len(runs) == 0 {
			t.Errorf("%v: %d candidates ran, want all %d selected (no prune)", tt.args, len(runs), len(sel))
		}
		d, err := tune.LoadDB(db)
		if err != nil || len(d.Entries) != 1 {
			t.Fatalf("%v: DB: %v, %+v", tt.args, err, d)
		}
		k := d.Entries[0].Key
		got := []any{k.Kernel, k.Shape, k.Experts, k.Routing, k.StoreOut}
		want := []any{tt.kind, tt.shape, tt.experts, tt.routing, tt.storeOut}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: DB key (-want +got):\n%s", tt.args, diff)
		}
	}
}

// writeGroupedDB writes a DB with moe_fwd_gateup entries at shape, E=128,
// one winner per routing given (routing -> config), and returns its path.
func writeGroupedDB(t *testing.T, shape tiling.Shape, winners map[string]tiling.Config) string {
	t.Helper()
	th, err := templates.Hash()
	if err != nil {
		t.Fatal(err)
	}
	db := tune.NewDB()
	for routing, c := range winners {
		e := db.Upsert(tune.Key{Kernel: tiling.KernelMoEFwdGateUp, Arch: tiling.ArchSM90a, DType: tiling.BF16, Shape: shape,
			GPU: "NVIDIA H100 80GB HBM3", Driver: 13000, Compiler: "nvcc 13.0.88", Templates: th, Experts: 128, Routing: routing})
		// The zipf winner is the faster: Lookup must still prefer uniform.
		us := 400.0
		if routing == tune.RoutingZipf {
			us = 300
		}
		e.Set(tune.Result{Config: c.Name(), Status: tune.StatusOK, US: us, BaselineUS: 520})
	}
	p := filepath.Join(t.TempDir(), "tune.json")
	if err := db.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEmitTunedGrouped: emit --kernel moe_fwd_gateup --tuned picks the
// grouped winner at its --shape (M,K,I: emit's shape has no E), the
// uniform routing's before another's, and its note says E and routing.
func TestEmitTunedGrouped(t *testing.T) {
	t.Parallel()
	shape := tiling.Shape{M: 65536, K: 2048, I: 768}
	space := tiling.Space(tiling.KernelMoEFwdGateUp, tiling.ArchSM90a, tiling.BF16)
	heur, _ := tiling.Heuristic(tiling.KernelMoEFwdGateUp, tiling.ArchSM90a, tiling.BF16, shape)
	var uni, zipf tiling.Config
	for _, c := range space {
		switch c.Name() {
		case "moe_fwd_gateup_sm90a_bf16_m128n128k128_s3_c1x1_pingpong":
			uni = c
		case "moe_fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong":
			zipf = c
		}
	}
	if uni.Name() == heur.Name() || zipf.Name() == heur.Name() || uni.TileM == 0 || zipf.TileM == 0 {
		t.Fatalf("test needs two space configs other than the heuristic's %s", heur.Name())
	}
	tests := []struct {
		name     string
		winners  map[string]tiling.Config
		want     tiling.Config
		noteWant string
	}{
		{"uniform first", map[string]tiling.Config{tune.RoutingUniform: uni, tune.RoutingZipf: zipf}, uni, "tuned at E=128, uniform routing"},
		{"zipf alone", map[string]tiling.Config{tune.RoutingZipf: zipf}, zipf, "tuned at E=128, zipf routing"},
	}
	for _, tt := range tests {
		path := writeGroupedDB(t, shape, tt.winners)
		o, err := parseEmit(t, "--kernel", "moe_fwd_gateup", "--arch", "sm_90a", "--shape", "65536,2048,768", "--tuned", path)
		if err != nil {
			t.Fatal(err)
		}
		cfgs, notes, err := o.configs()
		if err != nil || len(cfgs) != 1 {
			t.Fatalf("%s: %v %v", tt.name, err, cfgs)
		}
		if cfgs[0].Name() != tt.want.Name() {
			t.Errorf("%s: emit --tuned took %s, want %s", tt.name, cfgs[0].Name(), tt.want.Name())
		}
		if n := strings.Join(notes, "\n"); !strings.Contains(n, "using the tuned winner for moe_fwd_gateup sm_90a bf16") || !strings.Contains(n, tt.noteWant) {
			t.Errorf("%s: notes lack the winner or %q:\n%s", tt.name, tt.noteWant, n)
		}
	}
}
