package perfmodel

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestWriteModel pins WriteModel's text: the H200's roofline alone and
// the B200's with the per-tile projection of a 2-CTA CLC config, one
// shape a suite shape. go test ./perfmodel -run WriteModel -update
// rewrites the files.
func TestWriteModel(t *testing.T) {
	seed := tiling.Shape{M: 16384, K: 768, I: 4608}
	cfg, err := tiling.ParseName("bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_bmn_clc")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		golden string
		gpu    string
		cfgs   []tiling.Config
	}{
		{"model_h200.golden", "h200", nil},
		{"model_b200.golden", "b200", []tiling.Config{cfg}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			g, ok := Lookup(tt.gpu)
			if !ok {
				t.Fatalf("Lookup(%q): not found", tt.gpu)
			}
			var b bytes.Buffer
			suite := func(s tiling.Shape) string {
				if s == seed {
					return "the seed"
				}
				return ""
			}
			shapes := []tiling.Shape{seed, {M: 8192, K: 4096, I: 14336}}
			if err := WriteModel(&b, g, shapes, func(tiling.Shape) []tiling.Config { return tt.cfgs }, suite); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("WriteModel (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteModelBadConfig: a config of another arch is Project's error,
// not a panic or a partial silence.
func TestWriteModelBadConfig(t *testing.T) {
	g, _ := Lookup("b200")
	c, err := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = WriteModel(&b, g, []tiling.Shape{{M: 128, K: 64, I: 128}}, func(tiling.Shape) []tiling.Config { return []tiling.Config{c} }, func(tiling.Shape) string { return "" })
	if err == nil {
		t.Fatal("WriteModel with an sm_90a config on the B200: no error")
	}
}

// TestTileTimesBound covers each side of the steady-state bound.
func TestTileTimesBound(t *testing.T) {
	tests := []struct {
		t    TileTimes
		want string
	}{
		{TileTimes{Mainloop: 1, Epilogue: 2, HBM: 2, Warpgroup: 1}, "epilogue-bound: HBM"},
		{TileTimes{Mainloop: 1, Epilogue: 2, HBM: 1, Warpgroup: 2}, "epilogue-bound: warpgroup"},
		{TileTimes{Mainloop: 2, Epilogue: 1, MMA: 2, TMA: 1}, "mainloop-bound: MMA"},
		{TileTimes{Mainloop: 2, Epilogue: 1, MMA: 1, TMA: 2}, "mainloop-bound: TMA"},
	}
	for _, tt := range tests {
		if got := tt.t.Bound(); got != tt.want {
			t.Errorf("%+v.Bound() = %q, want %q", tt.t, got, tt.want)
		}
	}
}
