package tiling

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pySelectGolden is the file of selection cases the Python runtime's
// config choice (swigen_rt.select) is checked against.
var pySelectGolden = filepath.Join("..", "python", "tests", "testdata", "select.json")

// selectShapes are the shapes the selection golden asks at: every tuned
// shape (the suite), each nudged inside and outside the measured
// distance, ragged sizes, and shapes far from any tuned one.
func selectShapes(t *testing.T) []Shape {
	t.Helper()
	tab, err := Measured()
	if err != nil {
		t.Fatal(err)
	}
	var out []Shape
	seen := map[Shape]bool{}
	add := func(s Shape) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range tab.Rows {
		s := r.Shape
		add(s)
		add(Shape{M: s.M*3/2 + 1, K: s.K, I: s.I - 8})
		add(Shape{M: s.M * 2, K: s.K, I: s.I})
		add(Shape{M: s.M*2 + 1, K: s.K, I: s.I})
	}
	for _, s := range []Shape{
		{1, 8, 8}, {7, 72, 136}, {1000, 1000, 3000}, {333, 2056, 5128}, {4096, 4096, 1024},
		{65536, 1024, 2048}, {100000, 16384, 53248}, {4096, 512, 512}, {8192, 2048, 65536},
		{20000, 8192, 1024}, {3000, 4096, 14336}, {16384, 12288, 49152},
		{0, 8, 8}, {16, 100, 64}, {16, 64, 12}, {-1, 64, 64},
	} {
		add(s)
	}
	return out
}

// selectAnswer is a choice as the golden holds it: "config (measured)",
// "config (rules)", or "error: ..." for a shape no config takes.
func selectAnswer(name, source string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return name + " (" + source + ")"
}

// TestSelectionMatchesHeuristic checks the selection table's data picks
// what the heuristic picks, at every golden shape, for every op variant,
// arch and dtype.
func TestSelectionMatchesHeuristic(t *testing.T) {
	tab, err := Selections(Arches(), DTypes())
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range tab.Selection {
		v := OpVariant{Kernel: sel.Kernel, Name: sel.Variant}
		for _, ov := range OpVariants() {
			if ov.Kernel == sel.Kernel && ov.Name == sel.Variant {
				v = ov
			}
		}
		for _, s := range selectShapes(t) {
			name, source, err := sel.Choose(s)
			c, why, herr := HeuristicVariant(v, sel.Arch, sel.DType, s)
			if (err != nil) != (herr != nil) {
				t.Fatalf("%s %s %s %s at %s: table err %v, heuristic err %v", sel.Kernel, sel.Variant, sel.Arch, sel.DType, s, err, herr)
			}
			if err != nil {
				continue
			}
			if name != c.Name() || !strings.HasPrefix(why, source) {
				t.Errorf("%s %s %s %s at %s: table %s (%s), heuristic %s (%s)", sel.Kernel, sel.Variant, sel.Arch, sel.DType, s, name, source, c.Name(), why)
			}
		}
	}
}

// TestPythonSelectGolden checks the Python runtime's selection cases are
// current; -update rewrites them.
func TestPythonSelectGolden(t *testing.T) {
	tab, err := Selections(Arches(), DTypes())
	if err != nil {
		t.Fatal(err)
	}
	shapes := selectShapes(t)
	type answers struct {
		Kernel  Kernel   `json:"kernel"`
		Variant string   `json:"variant"`
		Arch    Arch     `json:"arch"`
		DType   DType    `json:"dtype"`
		Answers []string `json:"answers"`
	}
	var all []answers
	for _, sel := range tab.Selection {
		a := answers{Kernel: sel.Kernel, Variant: sel.Variant, Arch: sel.Arch, DType: sel.DType}
		for _, s := range shapes {
			a.Answers = append(a.Answers, selectAnswer(sel.Choose(s)))
		}
		all = append(all, a)
	}
	b, err := json.MarshalIndent(map[string]any{
		"doc":    "tiling.Selections and each selection's choice at shapes (go test ./tiling -run PythonSelectGolden -update writes it); python/tests/test_select.py checks swigen_rt.select against it",
		"table":  tab,
		"shapes": shapes,
		"calls":  all,
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(pySelectGolden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(pySelectGolden)
	if err != nil {
		t.Fatalf("read golden (go test ./tiling -run PythonSelectGolden -update writes it): %v", err)
	}
	if string(want) != string(b) {
		t.Errorf("%s is stale: rerun go test ./tiling -run PythonSelectGolden -update (-golden +now):\n%s",
			pySelectGolden, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(b), "\n")))
	}
}

// TestSelectionMajorB checks each selection's weight major: MN-major for
// the variants that prefer it (SwiGLUMLP's bwd_dswiglu out, so it never
// transposes W_down) on sm_90a, every config named in it; K-major, or
// MN-major where the variant prefers it, elsewhere, with a note where a
// preference was not taken.
func TestSelectionMajorB(t *testing.T) {
	tab, err := Selections(Arches(), DTypes())
	if err != nil {
		t.Fatal(err)
	}
	prefers := map[[2]string]Major{}
	for _, v := range OpVariants() {
		prefers[[2]string{string(v.Kernel), v.Name}] = v.MajorB
	}
	for _, sel := range tab.Selection {
		want := prefers[[2]string{string(sel.Kernel), sel.Variant}]
		if want == "" {
			want = KMajor
		}
		if sel.MajorB != want && (sel.MajorB != KMajor || sel.Note == "" || sel.Arch == ArchSM90a) {
			t.Errorf("%s %s %s %s: major_b %s (note %q), want %s", sel.Kernel, sel.Variant, sel.Arch, sel.DType, sel.MajorB, sel.Note, want)
		}
		for _, n := range sel.names() {
			c, err := ParseName(n)
			if err != nil {
				t.Fatal(err)
			}
			if c.MajorB != sel.MajorB {
				t.Errorf("%s %s %s %s: %s is major_b=%s, the selection's is %s", sel.Kernel, sel.Variant, sel.Arch, sel.DType, n, c.MajorB, sel.MajorB)
			}
		}
	}
}

// TestTakeMajorB checks a selection takes MN-major weights only where
// every config it names has a legal MN-major form, and says why not.
func TestTakeMajorB(t *testing.T) {
	const (
		n128 = "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out"
		n160 = "bwd_dswiglu_sm90a_bf16_m128n160k64_s3_c1x1_pingpong_out" // 160 columns: not whole 128-byte atoms MN-major
	)
	rules := func(n ...string) []RuleBranch {
		var out []RuleBranch
		for i, c := range n {
			out = append(out, RuleBranch{Facts: RuleFacts{Wide: i&1 != 0}, Config: c})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		sel      Selection
		want     Major
		wantRule []RuleBranch
		wantMeas []SelectRow
		note     string
	}{
		{name: "all legal", want: MNMajor,
			sel:      Selection{Measured: []SelectRow{{Config: n128}, {}}, Rules: rules(n128, n128)},
			wantMeas: []SelectRow{{Config: "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out"}, {}},
			wantRule: rules("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out", "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_bmn_out")},
		{name: "one without", want: KMajor, note: n160 + " has no legal major_b=mn form (tile_n=160: with major_b=mn",
			sel:      Selection{Measured: []SelectRow{{Config: n128}}, Rules: rules(n128, n160)},
			wantMeas: []SelectRow{{Config: n128}}, wantRule: rules(n128, n160)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel := tc.sel
			if err := sel.takeMajorB(MNMajor); err != nil {
				t.Fatal(err)
			}
			if sel.MajorB != tc.want || !strings.Contains(sel.Note, tc.note) || (tc.note == "") != (sel.Note == "") {
				t.Errorf("major_b %s note %q, want %s and a note with %q", sel.MajorB, sel.Note, tc.want, tc.note)
			}
			if d := cmp.Diff(tc.wantMeas, sel.Measured); d != "" {
				t.Errorf("measured (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantRule, sel.Rules); d != "" {
				t.Errorf("rules (-want +got):\n%s", d)
			}
		})
	}
	sel := Selection{Rules: rules(n160)}
	if err := sel.takeMajorB(KMajor); err != nil || sel.MajorB != KMajor || sel.Note != "" || sel.Rules[0].Config != n160 {
		t.Errorf("K-major preferred: %+v, %v", sel, err)
	}
}

// TestSelectionsGrouped checks each grouped op variant's selection: no
// measured rows and one config, the rule config emit --kernel takes,
// on every arch and dtype where it has code, and in Skipped, with
// GroupedMissing's reason, where it has none (moe_gemm on sm_100a).
func TestSelectionsGrouped(t *testing.T) {
	tab, err := Selections(Arches(), DTypes())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Selection{}
	for _, sel := range tab.Selection {
		got[string(sel.Kernel)+" "+sel.Variant+" "+string(sel.Arch)+" "+string(sel.DType)] = sel
	}
	n := 0
	for _, v := range OpVariants() {
		if !v.Kernel.Grouped() {
			continue
		}
		for _, a := range Arches() {
			for _, d := range DTypes() {
				sel, ok := got[string(v.Kernel)+" "+v.Name+" "+string(a)+" "+string(d)]
				skipped := slices.ContainsFunc(tab.Skipped, func(s Skipped) bool {
					return s.Kernel == v.Kernel && s.Variant == v.Name && s.Arch == a && s.DType == d
				})
				if GroupedMissing(v, a, d) != "" {
					if ok || !skipped {
						t.Errorf("%s on %s %s: selected %v, skipped %v; want skipped (%s)", v.Op, a, d, ok, skipped, GroupedMissing(v, a, d))
					}
					continue
				}
				if !ok || skipped {
					t.Errorf("%s on %s %s: selected %v, skipped %v; want selected", v.Op, a, d, ok, skipped)
				}
				if !ok {
					continue
				}
				n++
				want, _, err := HeuristicVariant(v, a, d, Shape{M: 4096, K: 4096, I: 1024})
				if err != nil {
					t.Fatal(err)
				}
				if len(sel.Measured) != 0 || slices.ContainsFunc(sel.Rules, func(b RuleBranch) bool { return b.Config != want.Name() }) {
					t.Errorf("%s on %s %s: measured %v, rules %v; want none and %s in every branch", v.Op, a, d, sel.Measured, sel.Rules, want.Name())
				}
			}
		}
	}
	if n == 0 {
		t.Error("no grouped selection")
	}
	for _, s := range tab.Skipped {
		v := OpVariant{Kernel: s.Kernel, Name: s.Variant}
		if i := slices.IndexFunc(OpVariants(), func(o OpVariant) bool { return o.Kernel == s.Kernel && o.Name == s.Variant }); i >= 0 {
			v = OpVariants()[i]
		}
		if s.Kernel.Grouped() && s.Why != GroupedMissing(v, s.Arch, s.DType) {
			t.Errorf("skipped %+v: want GroupedMissing's reason %q", s, GroupedMissing(v, s.Arch, s.DType))
		}
	}
}

// TestGroupedMissing checks which op variants have no kernel where.
func TestGroupedMissing(t *testing.T) {
	for _, tt := range []struct {
		kernel Kernel
		arch   Arch
		want   string
	}{
		{KernelBwdDSwiGLU, ArchSM100a, ""},
		{KernelMoEFwdGateUp, ArchSM90a, ""},
		{KernelMoEBwdDSwiGLU, ArchSM90a, ""},
		{KernelMoEFwdGateUp, ArchSM100a, ""},
		{KernelMoEBwdDSwiGLU, ArchSM100a, ""},
	} {
		for _, v := range OpVariants() {
			if v.Kernel != tt.kernel {
				continue
			}
			for _, d := range DTypes() {
				got := GroupedMissing(v, tt.arch, d)
				if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
					t.Errorf("GroupedMissing(%s %s, %s, %s) = %q, want %q", v.Kernel, v.Name, tt.arch, d, got, tt.want)
				}
			}
		}
	}
}
