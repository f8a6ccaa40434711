package elementwise

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	al := []cu.DevicePtr{0x1000, 0x2000, 0x3000, 0}
	tests := []struct {
		name      string
		op        Op
		dt        tiling.DType
		M, I      int
		ptrs      []cu.DevicePtr
		wantEntry string
		wantGrid  uint32
		wantErr   string
	}{
		{"aligned", DSwiGLU, tiling.BF16, 4, 64, al, "swigen_dswiglu_bf16_vec8", 1, ""},
		{"ragged I", DSwiGLU, tiling.FP16, 4, 60, al, "swigen_dswiglu_fp16_scalar", 1, ""},
		{"misaligned base", DSwiGLU, tiling.BF16, 4, 64, []cu.DevicePtr{0x1002, 0x2000, 0x3000, 0}, "swigen_dswiglu_bf16_scalar", 1, ""},
		{"misaligned out", SwiGLU, tiling.BF16, 4, 64, []cu.DevicePtr{0x1000, 0x2008}, "swigen_swiglu_bf16_scalar", 1, ""},
		{"seed shape capped", SwiGLU, tiling.BF16, 16384, 4608, al, "swigen_swiglu_bf16_vec8", 132 * BlocksPerSM, ""},
		{"small grid", DSwiGLU, tiling.BF16, 129, 200, al, "swigen_dswiglu_bf16_vec8", 13, ""},
		{"zero M", DSwiGLU, tiling.BF16, 0, 8, al, "", 0, "M=0"},
		{"bad dtype", SwiGLU, "fp8", 4, 8, al, "", 0, `dtype "fp8"`},
		{"bad op", "gelu", tiling.BF16, 4, 8, al, "", 0, `op "gelu"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Plan(tt.op, tt.dt, tt.M, tt.I, tt.ptrs, 132)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Plan: error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || l.Entry != tt.wantEntry || l.Grid != tt.wantGrid {
				t.Errorf("Plan = %+v, %v; want %s, grid %d", l, err, tt.wantEntry, tt.wantGrid)
			}
		})
	}
}

// TestSourceCompiles builds the module with the local CUDA compiler when
// one is installed (CI has the pinned pip nvcc): every entry point is in
// the PTX and the vec8 paths move 16 bytes per access.
func TestSourceCompiles(t *testing.T) {
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		t.Skipf("no CUDA compiler here: %v", err)
	}
	for _, arch := range tiling.Arches() {
		br, err := tc.Compile(context.Background(), ModuleName, Source(), toolchain.CompileOptions{Arch: string(arch), CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		ptx := string(br.PTX)
		for _, e := range Entries() {
			if !strings.Contains(ptx, ".entry "+e) {
				t.Errorf("%s: PTX lacks entry %s", arch, e)
			}
		}
		for _, op := range []*regexp.Regexp{regexp.MustCompile(`ld\.global(\.nc)?\.v4`), regexp.MustCompile(`st\.global\.v4`)} {
			if !op.MatchString(ptx) {
				t.Errorf("%s: the vec8 paths have no %s", arch, op)
			}
		}
		if len(br.Cubin) == 0 {
			t.Errorf("%s: no cubin", arch)
		}
	}
}

func TestEntries(t *testing.T) {
	es := Entries()
	if len(es) != 2*len(tiling.DTypes())*2 {
		t.Fatalf("Entries = %v", es)
	}
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e] {
			t.Errorf("duplicate entry %s", e)
		}
		seen[e] = true
	}
}
