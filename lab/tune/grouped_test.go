package tune

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestParseGroupedShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k       tiling.Kernel
		in      string
		want    tiling.Shape
		experts int
		errHas  []string // each must be in the error; none: it parses
	}{
		{tiling.KernelMoEFwdGateUp, "65536,2048,768,128", tiling.Shape{M: 65536, K: 2048, I: 768}, 128, nil},
		{tiling.KernelMoEBwdDSwiGLU, "32768,7168,2048,256", tiling.Shape{M: 32768, K: 7168, I: 2048}, 256, nil},
		// moe_gemm reads M,N,K as gemm does; the shape keeps N in I.
		{tiling.KernelMoEGEMM, "32768,7168,2048,256", tiling.Shape{M: 32768, K: 2048, I: 7168}, 256, nil},
		{tiling.KernelMoEFwdGateUp, " 1, 8, 8, 1", tiling.Shape{M: 1, K: 8, I: 8}, 1, nil},
		{tiling.KernelMoEFwdGateUp, "65536,2048,768", tiling.Shape{}, 0, []string{`"65536,2048,768"`, "want four sizes M,K,I,E", "got 3"}},
		{tiling.KernelMoEFwdGateUp, "1,8,8,8,8", tiling.Shape{}, 0, []string{"want four sizes", "got 5"}},
		{tiling.KernelMoEFwdGateUp, "65536,2048,770,128", tiling.Shape{}, 0, []string{`"770"`, "multiple of 8"}},
		{tiling.KernelMoEFwdGateUp, "65536,2048,768,0", tiling.Shape{}, 0, []string{`E "0"`, "from 1 to 4096"}},
		{tiling.KernelMoEFwdGateUp, "65536,2048,768,4097", tiling.Shape{}, 0, []string{`E "4097"`, "from 1 to 4096"}},
		{tiling.KernelMoEFwdGateUp, "65536,2048,768,x", tiling.Shape{}, 0, []string{`E "x"`}},
		{tiling.KernelMoEGEMM, "1,8,8,-2", tiling.Shape{}, 0, []string{`E "-2"`, "M,N,K,E"}},
	}
	for _, tt := range tests {
		got, e, err := ParseGroupedShape(tt.k, tt.in)
		if len(tt.errHas) > 0 {
			if err == nil {
				t.Errorf("ParseGroupedShape(%s, %q) = %v, %d; want an error", tt.k, tt.in, got, e)
				continue
			}
			for _, w := range tt.errHas {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseGroupedShape(%s, %q): error %q lacks %q", tt.k, tt.in, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseGroupedShape(%s, %q): %v", tt.k, tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" || e != tt.experts {
			t.Errorf("ParseGroupedShape(%s, %q): E %d, want %d; shape (-want +got):\n%s", tt.k, tt.in, e, tt.experts, d)
		}
		if back := FormatGroupedShape(tt.k, got, e); back != strings.ReplaceAll(tt.in, " ", "") {
			t.Errorf("FormatGroupedShape(%s, %v, %d) = %q, want %q", tt.k, got, e, back, tt.in)
		}
	}
}

// FuzzParseGroupedShape: the parser never panics, and what it accepts is
// a valid shape and expert count that it reads back from its own format.
func FuzzParseGroupedShape(f *testing.F) {
	for _, s := range []string{"65536,2048,768,128", "1,8,8,1", "1,8,8", ",,,", "1,8,8,99999999999999999999", "M=1,K=8,I=8,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range tiling.GroupedKernels() {
			sh, e, err := ParseGroupedShape(k, s)
			if err != nil {
				continue
			}
			if sh.Validate() != nil || e < 1 || e > MaxExperts {
				t.Fatalf("ParseGroupedShape(%s, %q) = %v, %d: accepted an invalid shape", k, s, sh, e)
			}
			sh2, e2, err := ParseGroupedShape(k, FormatGroupedShape(k, sh, e))
			if err != nil || sh2 != sh || e2 != e {
				t.Fatalf("ParseGroupedShape(%s, %q) = %v, %d; read back %v, %d, %v", k, s, sh, e, sh2, e2, err)
			}
		}
	})
}

func TestParseRouting(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want, errHas string
	}{
		{"uniform", "uniform", ""},
		{"zipf", "zipf", ""},
		{"Zipf", "", `--routing "Zipf": want one of uniform, zipf`},
		{"", "", `--routing "": want one of`},
	} {
		got, err := ParseRouting(tt.in)
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("ParseRouting(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.errHas)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRouting(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestRoutingCounts checks that each routing puts every token on one of
// the experts, deterministically, and that zipf is skewed to expert 0.
func TestRoutingCounts(t *testing.T) {
	t.Parallel()
	for _, r := range Routings() {
		a, err := RoutingCounts(r, 65536, 128)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := RoutingCounts(r, 65536, 128)
		sum := 0
		for _, c := range a {
			sum += c
		}
		if sum != 65536 || len(a) != 128 || !cmp.Equal(a, b) {
			t.Errorf("%s: %d tokens over %d experts (want 65536 over 128), deterministic %v", r, sum, len(a), cmp.Equal(a, b))
		}
	}
	z, _ := RoutingCounts(RoutingZipf, 65536, 128)
	u, _ := RoutingCounts(RoutingUniform, 65536, 128)
	if !(z[0] > 4*u[0]) {
		t.Errorf("zipf's expert 0 has %d tokens, uniform's %d: want it skewed", z[0], u[0])
	}
	if _, err := RoutingCounts("skewed", 8, 2); err == nil || !strings.Contains(err.Error(), `"skewed"`) {
		t.Errorf("RoutingCounts(skewed): %v, want an error naming it", err)
	}
}

// TestGroupedKeys checks the grouped part of DB keys: in the key string
// (so two routings or expert counts never share an entry), and the
// problems ParseDB reports for a key that no tune writes.
func TestGroupedKeys(t *testing.T) {
	t.Parallel()
	base := Key{Kernel: tiling.KernelMoEFwdGateUp, Arch: tiling.ArchSM90a, DType: tiling.BF16,
		Shape: tiling.Shape{M: 65536, K: 2048, I: 768}, GPU: "NVIDIA H100 80GB HBM3", Experts: 128, Routing: RoutingUniform}
	zipf, e256 := base, base
	zipf.Routing, e256.Experts = RoutingZipf, 256
	if base.String() == zipf.String() || base.String() == e256.String() {
		t.Errorf("keys collide: %s, %s, %s", base, zipf, e256)
	}
	if !strings.HasSuffix(base.String(), "|e=128,uniform") {
		t.Errorf("key %s: want the suffix |e=128,uniform", base)
	}
	dense := Key{Kernel: tiling.KernelFwdGateUp, Arch: tiling.ArchSM90a, DType: tiling.BF16, Shape: base.Shape}
	if strings.Contains(dense.String(), "|e=") {
		t.Errorf("dense key %s has a grouped part", dense)
	}
	tests := []struct {
		name   string
		k      Key
		errHas string
	}{
		{"grouped ok", base, ""},
		{"no experts", Key{Kernel: base.Kernel, Arch: base.Arch, DType: base.DType, Shape: base.Shape, Routing: RoutingUniform}, "experts 0 on a moe_fwd_gateup key: want 1 to 4096"},
		{"no routing", Key{Kernel: base.Kernel, Arch: base.Arch, DType: base.DType, Shape: base.Shape, Experts: 8}, `routing "" on a moe_fwd_gateup key`},
		{"dense with experts", Key{Kernel: dense.Kernel, Arch: dense.Arch, DType: dense.DType, Shape: dense.Shape, Experts: 8, Routing: RoutingZipf}, "only grouped kinds have them"},
	}
	for _, tt := range tests {
		ps := strings.Join(tt.k.problems(), "; ")
		if (tt.errHas == "") != (ps == "") || !strings.Contains(ps, tt.errHas) {
			t.Errorf("%s: problems %q, want %q", tt.name, ps, tt.errHas)
		}
	}
}

// TestGroupedRequest checks that a worker request carries the grouped
// part of the shape and that DecodeRequest refuses one without it.
func TestGroupedRequest(t *testing.T) {
	t.Parallel()
	c := tiling.Space(tiling.KernelMoEGEMM, tiling.ArchSM90a, tiling.BF16)[0]
	j := Job{Config: c, Shape: tiling.Shape{M: 32768, K: 2048, I: 7168}, Experts: 256, Routing: RoutingZipf}
	req := WorkerRequest{Job: j, Reps: 20, SyncTimeout: 1}
	line, err := req.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequest(line)
	if err != nil || got.Job.Experts != 256 || got.Job.Routing != RoutingZipf {
		t.Errorf("DecodeRequest(Encode) = %+v, %v; want E 256 zipf", got.Job, err)
	}
	j.Experts = 0
	line, _ = WorkerRequest{Job: j, Reps: 20, SyncTimeout: 1}.Encode()
	if _, err := DecodeRequest(line); err == nil || !strings.Contains(err.Error(), "experts 0 on a moe_gemm key") {
		t.Errorf("DecodeRequest without experts: %v, want an error naming them", err)
	}
}

// TestGroupedTable: tune table keeps one row per grouped key, its E and
// routing included, so a uniform and a zipf winner at one T,K,I are two
// rows, not two winners for one shape.
func TestGroupedTable(t *testing.T) {
	t.Parallel()
	db := NewDB()
	space := tiling.Space(tiling.KernelMoEBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)
	for i, r := range Routings() {
		e := db.Upsert(Key{Kernel: tiling.KernelMoEBwdDSwiGLU, Arch: tiling.ArchSM90a, DType: tiling.BF16,
			Shape: tiling.Shape{M: 32768, K: 7168, I: 2048}, GPU: "NVIDIA H100 80GB HBM3", Experts: 256, Routing: r})
		e.Set(Result{Config: space[i].Name(), Status: StatusOK, US: 900, BaselineUS: 1200})
	}
	tab, err := Table([]*DB{db}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]any
	for _, r := range tab.Rows {
		got = append(got, [2]any{r.Experts, r.Routing})
	}
	if d := cmp.Diff([][2]any{{256, RoutingUniform}, {256, RoutingZipf}}, got); d != "" {
		t.Errorf("rows' E and routing (-want +got):\n%s", d)
	}
}
