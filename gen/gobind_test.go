package gen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/tiling"
)

func TestValidateGoPackage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		want string // substring of the error; "" for valid
	}{
		{"kernels", ""},
		{"k2_sm90", ""},
		{"gen", ""}, // legal: an import's name does not clash with the package's own
		{"", "must match"},
		{"Kernels", "must match"},
		{"2k", "must match"},
		{"_k", "must match"},
		{"my-kernels", "must match"},
		{"k\n//go:generate rm -rf /", "must match"},
		{"func", "Go keyword"},
		{"type", "Go keyword"},
		{"main", "library, not a command"},
	} {
		err := ValidateGoPackage(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateGoPackage(%q) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidateGoPackage(%q) = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestGoIdent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
		bad      bool
	}{
		{in: "bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong", want: "BwdDswigluSm90aBf16M128n128k64S5C1x1Pingpong"},
		{in: "bwd_dswiglu_sm100a_bf16_m256n256k64_s5_c2x1_2cta_bmn_clc", want: "BwdDswigluSm100aBf16M256n256k64S5C2x1_2ctaBmnClc"},
		{in: "bwd_dswiglu", want: "BwdDswiglu"},
		{in: "x", want: "X"},
		{in: "", bad: true},
		{in: "Bwd", bad: true},
		{in: "2cta", bad: true},
		{in: "a__b", bad: true},
		{in: "a_", bad: true},
		{in: "a b", bad: true},
		{in: "a\"); os.Exit(1); (\"", bad: true},
		{in: "bwd_dswiglu/../x", bad: true},
	} {
		got, err := GoIdent(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("GoIdent(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("GoIdent(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestArchForCC(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		major, minor int
		want         tiling.Arch
		ok           bool
	}{
		{9, 0, tiling.ArchSM90a, true},
		{10, 0, tiling.ArchSM100a, true},
		{8, 0, "", false},
		{9, 1, "", false},
		{10, 3, "", false}, // B300: arch-specific sm_100a cubins do not run there
		{12, 0, "", false},
	} {
		got, ok := ArchForCC(tt.major, tt.minor)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ArchForCC(%d, %d) = %q, %v; want %q, %v", tt.major, tt.minor, got, ok, tt.want, tt.ok)
		}
	}
}

// testBinding renders cfg and returns a Binding as generated bindings
// would hold it, with a fake cubin.
func testBinding(t *testing.T, cfg tiling.Config) *Binding {
	t.Helper()
	a, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	man, err := marshalJSON(a.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	cubin := []byte("fake cubin of " + a.Name)
	sum := sha256.Sum256(cubin)
	return &Binding{
		Name: a.Name, Arch: cfg.Arch, ConfigHash: a.Manifest.ConfigHash, ParamLayout: ParamLayout(a.Manifest.Params),
		CubinSHA256: hex.EncodeToString(sum[:]), Manifest: man, Cubin: cubin,
	}
}

func heuristicCfg(t *testing.T, a tiling.Arch) tiling.Config {
	t.Helper()
	c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBindingCheck(t *testing.T) {
	t.Parallel()
	h90 := heuristicCfg(t, tiling.ArchSM90a)
	other := h90
	other.Stages--
	otherB := testBinding(t, other)
	for _, tt := range []struct {
		name  string
		edit  func(b *Binding)
		wants []string // substrings of the error; none for success
	}{
		{"fresh", func(*Binding) {}, nil},
		{"manifest of another config", func(b *Binding) { b.Manifest = otherB.Manifest }, []string{"embedded manifest is for"}},
		{"config hash changed", func(b *Binding) {
			b.Manifest = bytes.Replace(b.Manifest, []byte(b.ConfigHash), []byte("0123456789abcdef"), 1)
		}, []string{"stale bindings", "config hash 0123456789abcdef", "generated for " + testBinding(t, h90).ConfigHash, "go generate"}},
		{"params changed", func(b *Binding) { b.ParamLayout = "M:i32:4/4" }, []string{"stale bindings", "parameters", `"M:i32:4/4"`}},
		{"cubin changed", func(b *Binding) { b.Cubin = []byte("another cubin") }, []string{"stale bindings", "embedded cubin has sha256", "generated for " + testBinding(t, h90).CubinSHA256}},
		{"no cubin", func(b *Binding) { b.Cubin, b.CubinSHA256 = nil, "" }, []string{"no cubin embedded", "without a CUDA compiler"}},
		{"bad json", func(b *Binding) { b.Manifest = []byte("{") }, []string{"embedded manifest"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := testBinding(t, h90)
			tt.edit(b)
			m, err := b.Check()
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if m.Name != b.Name || m.ConfigHash != b.ConfigHash {
					t.Errorf("Check returned manifest %s/%s", m.Name, m.ConfigHash)
				}
				return
			}
			if err == nil {
				t.Fatal("Check succeeded, want an error")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestSelectBinding(t *testing.T) {
	t.Parallel()
	b90, b100 := testBinding(t, heuristicCfg(t, tiling.ArchSM90a)), testBinding(t, heuristicCfg(t, tiling.ArchSM100a))
	src90 := *b90
	src90.Cubin, src90.CubinSHA256 = nil, ""
	for _, tt := range []struct {
		name         string
		major, minor int
		bs           []*Binding
		want         *Binding
		errs         []string
	}{
		{"h200 picks sm_90a", 9, 0, []*Binding{b100, b90}, b90, nil},
		{"b200 picks sm_100a", 10, 0, []*Binding{b100, b90}, b100, nil},
		{"no sm_100a embedded", 10, 0, []*Binding{b90}, nil, []string{"no cubin for device GPU-X", "compute capability 10.0", "needs sm_100a", "embedded: sm_90a", "--arch sm_100a"}},
		{"unsupported device", 8, 0, []*Binding{b100, b90}, nil, []string{"device GPU-X has compute capability 8.0", "embedded: sm_100a, sm_90a"}},
		{"source only", 9, 0, []*Binding{&src90}, nil, []string{"GPU-X", "9.0", "needs sm_90a", "without a CUDA compiler"}},
		{"nothing embedded", 9, 0, nil, nil, []string{"embedded: none"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SelectBinding("GPU-X", tt.major, tt.minor, tt.bs)
			if len(tt.errs) == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("SelectBinding = %v, %v; want %s", got, err, tt.want.Name)
				}
				return
			}
			if err == nil {
				t.Fatalf("SelectBinding = %s, want an error", got.Name)
			}
			for _, w := range tt.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// bindEmit lays out an emit with Go bindings, in memory.
func bindEmit(t *testing.T, pkg string, cfgs ...tiling.Config) (*EmitResult, error) {
	t.Helper()
	return Emit(context.Background(), cfgs, EmitOptions{Dir: t.TempDir(), DryRun: true, ExtraFiles: GoBindingsHook(pkg)})
}

func bindingsOf(t *testing.T, res *EmitResult) []byte {
	t.Helper()
	for _, f := range res.Output {
		if f.Name == GoBindingsFile {
			return f.Data
		}
	}
	t.Fatalf("no %s in the emit", GoBindingsFile)
	return nil
}

// TestGoBindingsWellFormed checks the generated file parses, is marked
// generated, is gofmt-clean, is deterministic and declares what the docs
// promise. (tests/ pins the exact text with goldens and builds it.)
func TestGoBindingsWellFormed(t *testing.T) {
	t.Parallel()
	cfgs := []tiling.Config{heuristicCfg(t, tiling.ArchSM90a), heuristicCfg(t, tiling.ArchSM100a)}
	res, err := bindEmit(t, "kernels", cfgs...)
	if err != nil {
		t.Fatal(err)
	}
	src := bindingsOf(t, res)
	if !bytes.HasPrefix(src, []byte("// Code generated by swigen. DO NOT EDIT.\n")) {
		t.Errorf("first line is not the generated header:\n%.200s", src)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, GoBindingsFile, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if !ast.IsGenerated(f) {
		t.Error("ast.IsGenerated is false")
	}
	if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
		t.Errorf("not gofmt-clean (err %v)", err)
	}
	var decls []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				decls = append(decls, "func "+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					decls = append(decls, "type "+ts.Name.Name)
				}
			}
		}
	}
	want := []string{
		"type BwdArgs",
		"type BwdDswigluSm100aBf16M256n256k64S5C2x1_2cta", "func LoadBwdDswigluSm100aBf16M256n256k64S5C2x1_2cta",
		"type BwdDswigluSm90aBf16M128n192k64S4C1x1PingpongRnG4L2k", "func LoadBwdDswigluSm90aBf16M128n192k64S4C1x1PingpongRnG4L2k",
		"type BwdDswiglu", "func LoadBwdDswiglu",
		"func load",
	}
	if diff := cmp.Diff(want, decls); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	for _, c := range cfgs {
		if !bytes.Contains(src, []byte("//go:embed "+c.Name()+".json\n")) {
			t.Errorf("no //go:embed of %s.json", c.Name())
		}
	}
	// Without a compiler there are no cubins to embed: no pattern may name one
	// (an embed pattern that matches nothing fails the build).
	if bytes.Contains(src, []byte(".cubin\n")) {
		t.Error("bindings without cubins embed a cubin")
	}

	again, err := bindEmit(t, "kernels", cfgs[1], cfgs[0])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(src), string(bindingsOf(t, again))); diff != "" {
		t.Errorf("not deterministic (config order changed the output):\n%s", diff)
	}
}

// TestGoBindingsDispatcher checks when the per-kind launcher exists: only
// when the kernels of the kind share a calling convention and no arch
// repeats.
func TestGoBindingsDispatcher(t *testing.T) {
	t.Parallel()
	h90, h100 := heuristicCfg(t, tiling.ArchSM90a), heuristicCfg(t, tiling.ArchSM100a)
	fp16 := h100
	fp16.DType = tiling.FP16
	coop := h90
	coop.Schedule = tiling.Cooperative
	coop.EpiM, coop.EpiN, coop.EpiStages = tiling.DefaultEpilogue(coop.Arch, coop.Schedule, coop.TileM)
	for _, tt := range []struct {
		name string
		cfgs []tiling.Config
		want bool
	}{
		{"one per arch", []tiling.Config{h90, h100}, true},
		{"single", []tiling.Config{h90}, true},
		{"two dtypes", []tiling.Config{h90, fp16}, false},
		{"arch repeats", []tiling.Config{h90, coop}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := bindEmit(t, "kernels", tt.cfgs...)
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.Contains(bindingsOf(t, res), []byte("\nfunc LoadBwdDswiglu(ctx"))
			if got != tt.want {
				t.Errorf("dispatcher generated: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGoBindingsErrors(t *testing.T) {
	t.Parallel()
	h90 := heuristicCfg(t, tiling.ArchSM90a)
	a, err := Render(h90)
	if err != nil {
		t.Fatal(err)
	}
	entry := IndexEntry{Name: a.Name, Kernel: string(h90.Kernel), Arch: h90.Arch, ConfigHash: a.Manifest.ConfigHash,
		Source: a.Name + ".cu", Manifest: a.Name + ".json"}
	idx := func(edit func(e *IndexEntry)) Index {
		e := entry
		edit(&e)
		return Index{Kernels: []IndexEntry{e}}
	}
	man := func(edit func(m *Manifest)) []Manifest {
		m := a.Manifest
		edit(&m)
		return []Manifest{m}
	}
	same := func(*IndexEntry) {}
	sameM := func(*Manifest) {}
	for _, tt := range []struct {
		name string
		pkg  string
		idx  Index
		mans []Manifest
		want string
	}{
		{"bad package", "Kernels", idx(same), man(sameM), "go package name"},
		{"no kernels", "kernels", Index{}, nil, "no kernels"},
		{"count mismatch", "kernels", idx(same), nil, "0 manifests for 1"},
		{"index does not match manifest", "kernels", idx(func(e *IndexEntry) { e.ConfigHash = "x" }), man(sameM), "does not match its index entry"},
		{"name injects code", "kernels", idx(func(e *IndexEntry) { e.Name = "x\"\nfunc init() { panic(1) }\n//" }),
			man(func(m *Manifest) { m.Name = "x\"\nfunc init() { panic(1) }\n//" }), "kernel name"},
		{"embed pattern", "kernels", idx(func(e *IndexEntry) { e.Manifest = "*.json" }), man(sameM), "//go:embed pattern"},
		{"cubin without sha", "kernels", idx(func(e *IndexEntry) { e.Cubin = a.Name + ".sm_90a.cubin" }), man(sameM), "want both or neither"},
		{"kind differs from the index", "kernels", idx(same), man(func(m *Manifest) { m.Config.Kernel = tiling.KernelGEMM }), "does not match its index entry"},
		{"unknown kernel kind", "kernels", idx(func(e *IndexEntry) { e.Kernel = "conv" }), man(func(m *Manifest) { m.Config.Kernel = "conv" }),
			`kernel kind "conv" has no Go launcher (want one of gemm, fwd_gateup, fwd_down, bwd_dswiglu)`},
		{"name without its kind", "kernels", idx(func(e *IndexEntry) { e.Kernel = string(tiling.KernelGEMM) }),
			man(func(m *Manifest) { m.Config.Kernel = tiling.KernelGEMM }), "does not start with its kind gemm"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := GoBindings(tt.pkg, tt.idx, tt.mans)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("GoBindings = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestEmitExtraFiles checks the hook's files join the all-or-nothing write
// and that a hook cannot escape the directory or clobber a kernel's file.
func TestEmitExtraFiles(t *testing.T) {
	t.Parallel()
	h90 := heuristicCfg(t, tiling.ArchSM90a)
	for _, tt := range []struct {
		name  string
		files []OutputFile
		want  string
	}{
		{"escapes", []OutputFile{{Name: "../x.go"}}, "plain file name"},
		{"clobbers the index", []OutputFile{{Name: IndexFile}}, "laid out twice"},
		{"clobbers a source", []OutputFile{{Name: h90.Name() + ".cu"}}, "laid out twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, err := Emit(context.Background(), []tiling.Config{h90}, EmitOptions{Dir: dir,
				ExtraFiles: func(Index, []EmittedKernel) ([]OutputFile, error) { return tt.files, nil }})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Emit = %v, want an error containing %q", err, tt.want)
			}
			assertEmptyDir(t, dir)
		})
	}
	t.Run("bad package writes nothing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if _, err := Emit(context.Background(), []tiling.Config{h90}, EmitOptions{Dir: dir, ExtraFiles: GoBindingsHook("Bad")}); err == nil {
			t.Fatal("Emit succeeded with package name Bad")
		}
		assertEmptyDir(t, dir)
	})
	t.Run("written with the rest", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		res, err := Emit(context.Background(), []tiling.Config{h90}, EmitOptions{Dir: dir, ExtraFiles: GoBindingsHook("kernels")})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range res.Files {
			names = append(names, f.Path[len(dir)+1:])
		}
		want := []string{h90.Name() + ".cu", h90.Name() + ".json", GoBindingsFile, IndexFile}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("%s was written", e.Name())
	}
}

// bindCfg is the heuristic sm_90a config of kind k, edited by edit.
func bindCfg(t *testing.T, k tiling.Kernel, edit func(c *tiling.Config)) tiling.Config {
	t.Helper()
	c, err := tiling.Heuristic(k, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 16384, K: 768, I: 4608})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&c)
		c.Stages = c.MaxStages() // the edit may change what fits in shared memory
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
	}
	return c
}

// bindInputs renders cfgs (sorted by name, as Emit orders them) into the
// index and manifests GoBindings takes. A config in twins is rendered for
// sm_90a and relabelled as its sm_100a twin: GoBindings reads manifests
// only, so this tests dispatch for kinds whose sm_100a templates do not
// exist yet.
func bindInputs(t *testing.T, cfgs []tiling.Config, twins ...tiling.Config) (Index, []Manifest) {
	t.Helper()
	type km struct {
		e IndexEntry
		m Manifest
	}
	var all []km
	add := func(c tiling.Config, twin bool) {
		a, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		m := a.Manifest
		if twin {
			m.Config = twinOf(c)
			m.Arch, m.Name, m.Entry = m.Config.Arch, m.Config.Name(), m.Config.Name()
			m.ConfigHash = "twin" + m.ConfigHash[4:]
		}
		all = append(all, km{IndexEntry{Name: m.Name, Kernel: string(m.Config.Kernel), Arch: m.Arch, ConfigHash: m.ConfigHash,
			Source: m.Name + ".cu", Manifest: m.Name + ".json"}, m})
	}
	for _, c := range cfgs {
		add(c, false)
	}
	for _, c := range twins {
		add(c, true)
	}
	slices.SortFunc(all, func(a, b km) int { return strings.Compare(a.e.Name, b.e.Name) })
	var idx Index
	var mans []Manifest
	for _, x := range all {
		idx.Kernels = append(idx.Kernels, x.e)
		mans = append(mans, x.m)
	}
	return idx, mans
}

// twinOf is c relabelled for sm_100a (not a valid sm_100a config: only
// its name and arch change).
func twinOf(c tiling.Config) tiling.Config {
	c.Arch = tiling.ArchSM100a
	return c
}

// launchers lists the exported declarations of generated source as
// "type T", "func LoadT" and "T.Launch(Args)", in source order.
func launchers(t *testing.T, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), GoBindingsFile, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				out = append(out, "func "+d.Name.Name)
				continue
			}
			recv := d.Recv.List[0].Type.(*ast.StarExpr).X.(*ast.Ident).Name
			arg := d.Type.Params.List[0].Type.(*ast.Ident).Name
			out = append(out, fmt.Sprintf("%s.%s(%s)", recv, d.Name.Name, arg))
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					what := "type "
					if ts.Assign.IsValid() {
						what = "alias "
					}
					out = append(out, what+ts.Name.Name)
				}
			}
		}
	}
	return out
}

// TestGoBindingsKinds checks that every kind gets its launcher: a type per
// kernel whose Launch takes the kind's argument type, the argument types
// of the kinds present only, and a dispatcher per kind.
func TestGoBindingsKinds(t *testing.T) {
	t.Parallel()
	var cfgs []tiling.Config
	for _, k := range []tiling.Kernel{tiling.KernelGEMM, tiling.KernelFwdGateUp, tiling.KernelFwdDown, tiling.KernelBwdDSwiGLU} {
		cfgs = append(cfgs, bindCfg(t, k, nil))
	}
	idx, mans := bindInputs(t, cfgs, cfgs[0]) // gemm on both archs
	out, err := GoBindings("mlp", idx, mans)
	if err != nil {
		t.Fatal(err)
	}
	if formatted, err := format.Source(out.Data); err != nil || !bytes.Equal(formatted, out.Data) {
		t.Errorf("not gofmt-clean (err %v)", err)
	}
	twin, err := kernelTypeName(goKinds[0], twinOf(cfgs[0]).Name())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"alias GemmArgs", "alias FwdGateUpArgs", "alias FwdDownArgs", "alias BwdArgs",
		"type BwdDswigluSm90aBf16M128n192k64S4C1x1PingpongRnG4L2k", "func LoadBwdDswigluSm90aBf16M128n192k64S4C1x1PingpongRnG4L2k",
		"BwdDswigluSm90aBf16M128n192k64S4C1x1PingpongRnG4L2k.Launch(BwdArgs)",
		"type FwdDownSm90aBf16M128n256k64S4C1x1Cooperative", "func LoadFwdDownSm90aBf16M128n256k64S4C1x1Cooperative",
		"FwdDownSm90aBf16M128n256k64S4C1x1Cooperative.Launch(FwdDownArgs)",
		"type FwdGateUpSm90aBf16M128n128k64S6C1x1PingpongRnG4", "func LoadFwdGateUpSm90aBf16M128n128k64S6C1x1PingpongRnG4",
		"FwdGateUpSm90aBf16M128n128k64S6C1x1PingpongRnG4.Launch(FwdGateUpArgs)",
		"type " + twin, "func Load" + twin, twin + ".Launch(GemmArgs)",
		"type GemmSm90aBf16M128n256k64S4C1x1Cooperative", "func LoadGemmSm90aBf16M128n256k64S4C1x1Cooperative",
		"GemmSm90aBf16M128n256k64S4C1x1Cooperative.Launch(GemmArgs)",
		"type Gemm", "func LoadGemm", "Gemm.Launch(GemmArgs)",
		"type FwdGateUp", "func LoadFwdGateUp", "FwdGateUp.Launch(FwdGateUpArgs)",
		"type FwdDown", "func LoadFwdDown", "FwdDown.Launch(FwdDownArgs)",
		"type BwdDswiglu", "func LoadBwdDswiglu", "BwdDswiglu.Launch(BwdArgs)",
	}
	if diff := cmp.Diff(want, launchers(t, out.Data)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	// Each launcher plans with its kind's method, and the gemm dispatcher
	// holds both archs' bindings.
	for _, w := range []string{
		"k.PlanGemm(a)", "k.PlanFwdGateUp(a)", "k.PlanFwdDown(a)", "k.PlanBwd(a)",
		`load(ctx, "gemm", binding` + twin + `, bindingGemmSm90aBf16M128n256k64S4C1x1Cooperative)`,
	} {
		if !bytes.Contains(out.Data, []byte(w)) {
			t.Errorf("bindings lack %q", w)
		}
	}

	// One kind alone declares its own argument type only.
	idx, mans = bindInputs(t, cfgs[:1])
	out, err = GoBindings("kernels", idx, mans)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"alias GemmArgs",
		"type GemmSm90aBf16M128n256k64S4C1x1Cooperative", "func LoadGemmSm90aBf16M128n256k64S4C1x1Cooperative",
		"GemmSm90aBf16M128n256k64S4C1x1Cooperative.Launch(GemmArgs)",
		"type Gemm", "func LoadGemm", "Gemm.Launch(GemmArgs)"}
	if diff := cmp.Diff(want, launchers(t, out.Data)); diff != "" {
		t.Errorf("gemm only: declarations (-want +got):\n%s", diff)
	}
}

// TestGoBindingsDispatchRule checks the dispatcher rule of every kind: one
// kernel per arch, all with one calling convention (dtype, operand
// layouts, the optional tensors).
func TestGoBindingsDispatchRule(t *testing.T) {
	t.Parallel()
	gemm := bindCfg(t, tiling.KernelGEMM, nil)
	gemmMN := bindCfg(t, tiling.KernelGEMM, func(c *tiling.Config) { c.MajorA, c.MajorB = tiling.MNMajor, tiling.MNMajor })
	gemmB := bindCfg(t, tiling.KernelGEMM, func(c *tiling.Config) { c.MajorB = tiling.MNMajor })
	gemmFP16 := bindCfg(t, tiling.KernelGEMM, func(c *tiling.Config) { c.DType = tiling.FP16 })
	// The same kind with the other sm_90a schedule (the heuristic gemm is
	// cooperative 128x256).
	gemmCoop := bindCfg(t, tiling.KernelGEMM, func(c *tiling.Config) {
		c.Schedule, c.TileN = tiling.PingPong, 128
		c.EpiM, c.EpiN, c.EpiStages = tiling.DefaultEpilogue(c.Arch, c.Schedule, c.TileM)
	})
	up := bindCfg(t, tiling.KernelFwdGateUp, nil)
	upTrain := bindCfg(t, tiling.KernelFwdGateUp, func(c *tiling.Config) { c.StoreOut = true })
	upBMN := bindCfg(t, tiling.KernelFwdGateUp, func(c *tiling.Config) { c.MajorB = tiling.MNMajor })
	down := bindCfg(t, tiling.KernelFwdDown, nil)
	downRes := bindCfg(t, tiling.KernelFwdDown, func(c *tiling.Config) { c.Residual = true })
	bwd := bindCfg(t, tiling.KernelBwdDSwiGLU, nil)
	bwdOut := bindCfg(t, tiling.KernelBwdDSwiGLU, func(c *tiling.Config) { c.StoreOut = true })
	for _, tt := range []struct {
		name  string
		cfgs  []tiling.Config
		twins []tiling.Config // relabelled sm_100a
		want  []string        // dispatchers
	}{
		{"gemm single", []tiling.Config{gemm}, nil, []string{"Gemm"}},
		{"gemm one per arch", []tiling.Config{gemm}, []tiling.Config{gemm}, []string{"Gemm"}},
		{"gemm arch repeats", []tiling.Config{gemm, gemmCoop}, nil, nil},
		{"gemm layouts differ", []tiling.Config{gemm}, []tiling.Config{gemmMN}, nil},
		{"gemm B layout differs", []tiling.Config{gemmB}, []tiling.Config{gemm}, nil},
		{"gemm dtypes differ", []tiling.Config{gemm}, []tiling.Config{gemmFP16}, nil},
		{"fwd_gateup one per arch", []tiling.Config{upTrain}, []tiling.Config{upTrain}, []string{"FwdGateUp"}},
		{"fwd_gateup training and inference", []tiling.Config{up}, []tiling.Config{upTrain}, nil},
		{"fwd_gateup W layouts differ", []tiling.Config{up}, []tiling.Config{upBMN}, nil},
		{"fwd_down one per arch", []tiling.Config{downRes}, []tiling.Config{downRes}, []string{"FwdDown"}},
		{"fwd_down residual differs", []tiling.Config{down}, []tiling.Config{downRes}, nil},
		{"bwd store-out differs", []tiling.Config{bwd}, []tiling.Config{bwdOut}, nil},
		// Per kind: an ambiguous kind loses its dispatcher, the others keep theirs.
		{"kinds are independent", []tiling.Config{gemm, gemmCoop, up, down, bwd}, []tiling.Config{bwd}, []string{"FwdGateUp", "FwdDown", "BwdDswiglu"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			idx, mans := bindInputs(t, tt.cfgs, tt.twins...)
			out, err := GoBindings("kernels", idx, mans)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range launchers(t, out.Data) {
				if n, ok := strings.CutPrefix(d, "type "); ok && !strings.Contains(n, "Sm") {
					got = append(got, n)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("dispatchers (-want +got):\n%s", diff)
			}
		})
	}
}
