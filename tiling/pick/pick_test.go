package pick

import (
	"errors"
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// TestConfigsOn: names, the catalog and the space of the GPU's arch,
// or the heuristic's config when none is asked for; bad words and a
// config of another arch are UsageErrors.
func TestConfigsOn(t *testing.T) {
	t.Parallel()
	base := Request{Kernels: []string{"bwd_dswiglu"}, DType: "bf16", Shape: "16384,768,4608"}
	h, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	sm100, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM100a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		edit      func(*Request)
		wantN     int // 0: only check the first is the heuristic's
		wantUsage string
	}{
		{"heuristic", func(*Request) {}, 1, ""},
		{"name", func(f *Request) { f.Names = []string{h.Name()} }, 1, ""},
		{"catalog", func(f *Request) { f.Catalog = true }, len(FilterConfigs(tiling.Catalog(), []tiling.Kernel{tiling.KernelBwdDSwiGLU}, []tiling.Arch{tiling.ArchSM90a}, nil)), ""},
		{"space", func(f *Request) { f.Space = true }, len(tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)), ""},
		{"other arch", func(f *Request) { f.Names = []string{sm100.Name()} }, 0, "but this GPU runs sm_90a kernels"},
		{"bad kernel", func(f *Request) { f.Kernels = []string{"nope"} }, 0, "nope"},
		{"bad shape", func(f *Request) { f.Shape = "1,2" }, 0, "1,2"},
	} {
		f := base
		tt.edit(&f)
		cfgs, err := f.ConfigsOn(tiling.ArchSM90a)
		if tt.wantUsage != "" {
			if u := (*UsageError)(nil); !errors.As(err, &u) || !strings.Contains(err.Error(), tt.wantUsage) {
				t.Errorf("%s: error %v, want a UsageError containing %q", tt.name, err, tt.wantUsage)
			}
			continue
		}
		if err != nil || len(cfgs) != tt.wantN {
			t.Errorf("%s: %d configs, %v; want %d", tt.name, len(cfgs), err, tt.wantN)
		}
		if tt.name == "heuristic" && (len(cfgs) != 1 || cfgs[0] != h) {
			t.Errorf("heuristic: %v, want %s", cfgs, h.Name())
		}
	}
}

// TestCheck: every word is checked before a GPU; each error is a
// UsageError naming the value.
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		r    Request
		want string
	}{
		{Request{Kernels: []string{"x"}, DType: "bf16", Shape: "128,64,128"}, "x"},
		{Request{Kernels: []string{"gemm"}, DType: "fp8", Shape: "128,64,128"}, "fp8"},
		{Request{Kernels: []string{"gemm"}, DType: "bf16", Shape: "1"}, "--heuristic-shape"},
		{Request{Kernels: []string{"gemm"}, DType: "bf16", Shape: "128,64,128", Names: []string{"bogus"}}, "bogus"},
	} {
		err := tt.r.Check()
		if u := (*UsageError)(nil); !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want a UsageError containing %q", tt.r, err, tt.want)
		}
	}
	if err := (&Request{Kernels: []string{"gemm"}, DType: "bf16", Shape: "128,64,128"}).Check(); err != nil {
		t.Errorf("good selection: %v", err)
	}
}

// TestRequestExclusions: emit's selections that exclude each other.
func TestRequestExclusions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		r    Request
		want string
	}{
		{Request{Tuned: "db.json", Catalog: true}, "--tuned replaces the heuristic choice"},
		{Request{Catalog: true, Name: "x"}, "--catalog and --name exclude each other"},
		{Request{Catalog: true, Changed: map[string]bool{"stages": true}}, "cannot be combined with --stages"},
		{Request{Catalog: true, Changed: map[string]bool{"shape": true}}, "--catalog does not use --shape"},
		{Request{Name: "x", Changed: map[string]bool{"arch": true}}, "drop --arch"},
	} {
		if _, _, err := tt.r.Configs(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one containing %q", tt.r, err, tt.want)
		}
	}
}
