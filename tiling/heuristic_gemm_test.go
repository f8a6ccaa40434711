package tiling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNearestGemmByMajors: the gemm lookup takes the nearest row of the
// asked majors only, and none when no row has them.
func TestNearestGemmByMajors(t *testing.T) {
	t.Parallel()
	kk := "gemm_sm90a_bf16_m128n176k64_s5_c1x1_cooperative"
	mn := "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn"
	far := "gemm_sm90a_bf16_m256n128k64_s4_c1x1_cooperative_amn_bmn"
	row := func(cfg string, s Shape) MeasuredRow {
		return MeasuredRow{Kernel: KernelGEMM, Arch: ArchSM90a, DType: BF16, Shape: s, Config: cfg, US: 1, BaselineUS: 1, GPU: "NVIDIA H200"}
	}
	at := Shape{M: 2048, K: 4096, I: 7168}
	tab := &MeasuredTable{Rows: []MeasuredRow{row(kk, at), row(mn, Shape{M: 2048, K: 4096, I: 6144}), row(far, Shape{M: 8192, K: 8192, I: 8192})}}
	tests := []struct {
		ma, mb Major
		want   string // "" is no row
	}{
		{KMajor, KMajor, kk},
		{MNMajor, MNMajor, mn},
		{KMajor, MNMajor, ""},
	}
	for _, tt := range tests {
		m, ok := tab.nearestGemm(ArchSM90a, BF16, at, tt.ma, tt.mb)
		got := ""
		if ok {
			got = m.Row.Config
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("majors %s/%s (-want +got):\n%s", tt.ma, tt.mb, diff)
		}
	}
}

// TestHeuristicGemmRules: with no gemm row of the majors within reach the
// rules' cooperative 128x256 in the asked majors (as the callers set them
// before majors were keyed), and Heuristic's gemm is HeuristicGemm's
// K-major one.
func TestHeuristicGemmRules(t *testing.T) {
	t.Parallel()
	s := Shape{M: 64, K: 64, I: 64} // far from every tuned shape
	for _, m := range [][2]Major{{KMajor, KMajor}, {KMajor, MNMajor}, {MNMajor, MNMajor}} {
		got, _, err := HeuristicGemm(ArchSM90a, BF16, s, m[0], m[1])
		if err != nil {
			t.Fatal(err)
		}
		want, err := RuleHeuristic(KernelGEMM, ArchSM90a, BF16, s, false)
		if err != nil {
			t.Fatal(err)
		}
		want.MajorA, want.MajorB = m[0], m[1]
		if diff := cmp.Diff(want.Name(), got.Name()); diff != "" {
			t.Errorf("majors %v (-want +got):\n%s", m, diff)
		}
	}
	h, err := Heuristic(KernelGEMM, ArchSM90a, BF16, s)
	if err != nil {
		t.Fatal(err)
	}
	g, _, _ := HeuristicGemm(ArchSM90a, BF16, s, KMajor, KMajor)
	if diff := cmp.Diff(g.Name(), h.Name()); diff != "" {
		t.Errorf("Heuristic vs HeuristicGemm(k, k) (-want +got):\n%s", diff)
	}
}

// TestGemmSelectionKMajorRows: the PyTorch gemm op's selection (K-major
// both) lists only the table's K-major gemm rows.
func TestGemmSelectionKMajorRows(t *testing.T) {
	t.Parallel()
	row := func(cfg string, m int) MeasuredRow {
		return MeasuredRow{Kernel: KernelGEMM, Arch: ArchSM90a, DType: BF16, Shape: Shape{M: m, K: 4096, I: 4096}, Config: cfg, US: 1, BaselineUS: 1, GPU: "NVIDIA H200"}
	}
	tab := &MeasuredTable{Rows: []MeasuredRow{
		row("gemm_sm90a_bf16_m128n176k64_s5_c1x1_cooperative", 2048),
		row("gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn", 4096),
	}}
	sel, err := selectionOf(tab, OpVariant{Kernel: KernelGEMM}, ArchSM90a, BF16)
	if err != nil {
		t.Fatal(err)
	}
	want := []SelectRow{{Shape: Shape{M: 2048, K: 4096, I: 4096}, Config: "gemm_sm90a_bf16_m128n176k64_s5_c1x1_cooperative"}}
	if diff := cmp.Diff(want, sel.Measured); diff != "" {
		t.Errorf("measured rows (-want +got):\n%s", diff)
	}
}
