package pick

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// TestStoreOut: the heuristic's StoreOut config is picked by emit's field
// flag --store-out true and by bench's HeuristicStoreOut alike, in every
// entry point (Configs, ConfigsOn, and the store-out TunedConfig sees).
func TestStoreOut(t *testing.T) {
	t.Parallel()
	s := tiling.Shape{M: 16384, K: 768, I: 4608}
	plain, err := tiling.Heuristic(tiling.KernelFwdGateUp, tiling.ArchSM90a, tiling.BF16, s)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := tiling.HeuristicStoreOut(tiling.KernelFwdGateUp, tiling.ArchSM90a, tiling.BF16, s)
	if err != nil {
		t.Fatal(err)
	}
	if plain == stored {
		t.Fatalf("fwd_gateup's StoreOut config is its plain one (%s): the cases below test nothing", plain.Name())
	}
	base := Request{Kernels: []string{"fwd_gateup"}, Arches: []string{"sm_90a"}, DType: "bf16", Shape: s.String()}
	for _, tt := range []struct {
		name string
		edit func(*Request)
		want tiling.Config
	}{
		{"none", func(*Request) {}, plain},
		{"field false", func(r *Request) { r.Fields = map[string][]string{"store-out": {"false"}} }, plain},
		{"heuristic store-out", func(r *Request) { r.HeuristicStoreOut = true }, stored},
	} {
		r := base
		tt.edit(&r)
		on, err := r.ConfigsOn(tiling.ArchSM90a)
		if err != nil {
			t.Fatalf("%s: ConfigsOn: %v", tt.name, err)
		}
		var seen []bool
		r.Tuned = "db.json"
		r.TunedConfig = func(_ string, heur tiling.Config, _ tiling.Shape, storeOut bool) (tiling.Config, string, error) {
			seen = append(seen, storeOut)
			return heur, "", nil
		}
		js, err := r.Jobs("bench", tiling.ArchSM90a, []tiling.Shape{s}, false)
		if err != nil || len(js) != 1 {
			t.Fatalf("%s: Jobs: %v, %v", tt.name, js, err)
		}
		got := []string{on[0].Name(), js[0].Config.Name()}
		if d := cmp.Diff([]string{tt.want.Name(), tt.want.Name()}, got); d != "" {
			t.Errorf("%s: configs (-want +got):\n%s", tt.name, d)
		}
		if d := cmp.Diff([]bool{r.StoreOut()}, seen); d != "" {
			t.Errorf("%s: TunedConfig's storeOut (-want +got):\n%s", tt.name, d)
		}
	}
	// emit's field flag picks the same base config (before it overrides).
	r := base
	r.Fields = map[string][]string{"store-out": {"true"}}
	r.Changed = map[string]bool{"store-out": true}
	cfgs, _, err := r.Configs()
	if err != nil || len(cfgs) != 1 || !r.StoreOut() {
		t.Fatalf("emit --store-out: %v, %v", cfgs, err)
	}
	if want, _, _ := (&Request{Fields: r.Fields, Changed: r.Changed}).Override([]tiling.Config{stored}); len(want) != 1 || cfgs[0] != want[0] {
		t.Errorf("emit --store-out: %s, want %s", cfgs[0].Name(), want[0].Name())
	}
}

// TestKernel: a one-kernel selection's kind is its only Kernels word.
func TestKernel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ks   []string
		want string
	}{{nil, ""}, {[]string{"gemm"}, "gemm"}, {[]string{"gemm", "fwd_gateup"}, "gemm"}} {
		if got := (&Request{Kernels: tt.ks}).Kernel(); got != tt.want {
			t.Errorf("Kernels %q: Kernel() = %q, want %q", tt.ks, got, tt.want)
		}
	}
}
