package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// TestTuneThenEmitTunedSameShape: a DB that tune writes at a --shape is
// found by emit --tuned given the same --shape string, for every kind and
// form (gemm's positional M,N,K was read as M,K,N by emit, which then
// fell back to the heuristic); at another shape emit keeps the heuristic
// and names the nearest tuned shape, in the kind's own order.
func TestTuneThenEmitTunedSameShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kernel tiling.Kernel
		shape  string // tune's and emit's --shape
		want   tiling.Shape
		other  string // an untuned shape for emit
	}{
		{tiling.KernelGEMM, "4096,7168,2048", tiling.Shape{M: 4096, K: 2048, I: 7168}, "4096,7168,4096"},
		{tiling.KernelGEMM, "M=4096,N=7168,K=2048", tiling.Shape{M: 4096, K: 2048, I: 7168}, "M=8192,N=7168,K=2048"},
		{tiling.KernelGEMM, "2048,4096,7168", tiling.Shape{M: 2048, K: 7168, I: 4096}, "2048,4096,6144"},
		{tiling.KernelBwdDSwiGLU, "4096,7168,2048", tiling.Shape{M: 4096, K: 7168, I: 2048}, "8192,7168,2048"},
		{tiling.KernelFwdGateUp, "4096,768,4608", tiling.Shape{M: 4096, K: 768, I: 4608}, "4096,768,9216"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kernel)+"/"+tt.shape, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "tune.json")
			o, err := parseTune(t, "--kernel", string(tt.kernel), "--shape", tt.shape, "--db", db, "--filter", "c1x1", "--max", "4")
			if err != nil {
				t.Fatal(err)
			}
			var runs []string
			var stderr bytes.Buffer
			if err := runTune(context.Background(), &env{stdout: &bytes.Buffer{}, stderr: &stderr}, o, fakeTuneDeps(t, "", &runs)); err != nil {
				t.Fatalf("tune: %v\n%s", err, stderr.String())
			}
			got, err := tune.LoadDB(db)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Entries) != 1 || got.Entries[0].Key.Shape != tt.want {
				t.Fatalf("tune --shape %s wrote %d entries, the first at %+v; want one at %+v", tt.shape, len(got.Entries), got.Entries[0].Key.Shape, tt.want)
			}
			th, err := templates.Hash()
			if err != nil {
				t.Fatal(err)
			}
			w, ok := got.Lookup(tt.kernel, tiling.ArchSM90a, tiling.BF16, tt.want, false, th)
			if !ok {
				t.Fatal("the tuned DB has no winner")
			}

			cfgs, notes := emitTuned(t, db, tt.kernel, tt.shape)
			if d := cmp.Diff([]string{w.Config.Name()}, names(cfgs)); d != "" || !strings.Contains(strings.Join(notes, "\n"), "using the tuned winner") {
				t.Errorf("emit --tuned --shape %s: configs (-want +got):\n%s\nnotes:\n%s", tt.shape, d, strings.Join(notes, "\n"))
			}

			other, err := tiling.ParseKindShape(tt.kernel, tt.other)
			if err != nil {
				t.Fatal(err)
			}
			heur, err := tiling.Heuristic(tt.kernel, tiling.ArchSM90a, tiling.BF16, other)
			if err != nil {
				t.Fatal(err)
			}
			cfgs, notes = emitTuned(t, db, tt.kernel, tt.other)
			wantNote := "the nearest tuned shape is --shape " + tiling.FormatKindShape(tt.kernel, tt.want) + ", " + tiling.ShapeOrder(tt.kernel)
			if d := cmp.Diff([]string{heur.Name()}, names(cfgs)); d != "" || !strings.Contains(strings.Join(notes, "\n"), wantNote) {
				t.Errorf("emit --tuned --shape %s: configs (-want +got):\n%s\nnotes (want %q):\n%s", tt.other, d, wantNote, strings.Join(notes, "\n"))
			}
		})
	}
}

// emitTuned resolves emit --tuned db for one kind on sm_90a at shape.
func emitTuned(t *testing.T, db string, k tiling.Kernel, shape string) ([]tiling.Config, []string) {
	t.Helper()
	o, err := parseEmit(t, "--tuned", db, "--kernel", string(k), "--arch", "sm_90a", "--shape", shape)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, notes, err := o.configs()
	if err != nil {
		t.Fatal(err)
	}
	return cfgs, notes
}

func names(cfgs []tiling.Config) []string {
	var out []string
	for _, c := range cfgs {
		out = append(out, c.Name())
	}
	return out
}
