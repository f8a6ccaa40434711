// Package gobind writes the Go bindings of an emit: a Go package that
// embeds the emitted cubins and manifests and has, per kernel and per
// kernel kind, a typed launcher over runtime/launch. It is an emit's extra
// file (Hook), laid out and written with the kernels.
package gobind

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"regexp"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// File is the Go file Generate writes into the output
// directory; it must sit next to the cubins because //go:embed cannot
// reach into other directories.
const File = "swigen_bindings.go"

// Import paths the generated bindings use.
const (
	cuPath     = "github.com/swigen/swigen/runtime/cu"
	launchPath = "github.com/swigen/swigen/runtime/launch"
	tilingPath = "github.com/swigen/swigen/tiling"
)

var (
	goPackageRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	// embedNameRE is what a file name may hold to be used verbatim as a
	// //go:embed pattern: no glob characters, spaces, quotes or separators.
	embedNameRE = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)
)

// ValidatePackage checks a --go-package name: lower case letters, digits
// and underscores, starting with a letter, not a Go keyword, and not main
// (the bindings have no func main).
func ValidatePackage(name string) error {
	switch {
	case !goPackageRE.MatchString(name):
		return fmt.Errorf("go package name %q: must match %s", name, goPackageRE)
	case token.IsKeyword(name):
		return fmt.Errorf("go package name %q: is a Go keyword", name)
	case name == "main":
		return fmt.Errorf("go package name %q: the bindings are a library, not a command", name)
	}
	return nil
}

// goIdent turns a procedural kernel name (or a kernel kind) into an
// exported Go identifier: each underscore-separated word capitalised,
// bwd_dswiglu_sm90a_bf16_m128n128k64_s5_c1x1_pingpong ->
// BwdDswigluSm90aBf16M128n128k64S5C1x1Pingpong. A word that starts with a
// digit keeps its underscore (c2x1_2cta -> C2x1_2cta), so the mapping stays
// one-to-one and readable. Names are procedural, but they are still
// checked: only lower-case letters, digits and single underscores,
// starting with a letter, and the result must be an exported identifier.
func goIdent(name string) (string, error) {
	if !goPackageRE.MatchString(name) || strings.Contains(name, "__") || strings.HasSuffix(name, "_") {
		return "", fmt.Errorf("kernel name %q: must match %s, without empty words, to become a Go identifier", name, goPackageRE)
	}
	var b strings.Builder
	for i, w := range strings.Split(name, "_") {
		if i > 0 && w[0] >= '0' && w[0] <= '9' {
			b.WriteByte('_')
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	id := b.String()
	if !token.IsIdentifier(id) || !token.IsExported(id) {
		return "", fmt.Errorf("kernel name %q: gives %q, not an exported Go identifier", name, id)
	}
	return id, nil
}

// Hook returns a gen.EmitOptions.ExtraFiles function that adds the
// Go bindings of package pkg to an emit.
func Hook(pkg string) func(gen.Index, []gen.EmittedKernel) ([]gen.OutputFile, error) {
	return func(idx gen.Index, kernels []gen.EmittedKernel) ([]gen.OutputFile, error) {
		mans := make([]manifest.Manifest, len(kernels))
		for i, k := range kernels {
			mans[i] = k.Artifact.Manifest
		}
		f, err := Generate(pkg, idx, mans)
		if err != nil {
			return nil, err
		}
		return []gen.OutputFile{f}, nil
	}
}

// goKind is how the bindings spell one kernel kind in Go: the names follow
// runtime/launch, whose argument types the launchers take and whose
// generic Plan method they wrap.
type goKind struct {
	kind  tiling.Kernel
	ident string // the kind's Go name: prefix of its launcher types, name of its dispatcher
	args  string // argument type: an alias of the launch type of the same name
}

// goKinds lists the kinds with Go launchers (the registry's GoName and
// GoArgs), in the order the bindings declare their argument types and
// dispatchers (GoOrder: the MLP's data flow, then the backward).
var goKinds = registryGoKinds()

func registryGoKinds() []goKind {
	specs := tiling.Kinds()
	slices.SortStableFunc(specs, func(a, b tiling.KindSpec) int { return a.GoOrder - b.GoOrder })
	gs := make([]goKind, 0, len(specs))
	for _, s := range specs {
		if s.GoName != "" {
			gs = append(gs, goKind{kind: s.Kernel, ident: s.GoName, args: s.GoArgs})
		}
	}
	return gs
}

func goKindOf(k tiling.Kernel) (goKind, bool) {
	for _, g := range goKinds {
		if g.kind == k {
			return g, true
		}
	}
	return goKind{}, false
}

func goKindNames() string {
	var s []string
	for _, g := range goKinds {
		s = append(s, string(g.kind))
	}
	return strings.Join(s, ", ")
}

// bindKernel is one kernel of the bindings with its derived identifiers.
type bindKernel struct {
	e       gen.IndexEntry
	m       manifest.Manifest
	kind    goKind
	typ     string // exported launcher type
	load    string // its Load function
	man     string // embedded manifest variable
	cubin   string // embedded cubin variable; "" without a cubin
	binding string // *launch.Binding variable
}

// dispatcher is a per-kernel-kind launcher that picks the variant for the
// device's arch.
type dispatcher struct {
	kind    goKind
	typ     string
	load    string
	kernels []*bindKernel
}

// Generate renders the Go package pkg for the kernels of idx (mans holds
// their manifests, in index order): the cubins and manifests embedded with
// //go:embed; per kernel a launcher type whose Launch takes the argument
// type of its kind (GemmArgs, FwdGateUpArgs, FwdDownArgs or BwdArgs,
// aliases of runtime/launch's); and per kernel kind an arch-dispatching
// launcher when the emit holds at most one kernel of the kind per arch,
// all with one calling convention. Every identifier and file name is
// validated; the output is deterministic and gofmt-formatted.
func Generate(pkg string, idx gen.Index, mans []manifest.Manifest) (gen.OutputFile, error) {
	if err := ValidatePackage(pkg); err != nil {
		return gen.OutputFile{}, fmt.Errorf("go bindings: %w", err)
	}
	if len(mans) != len(idx.Kernels) {
		return gen.OutputFile{}, fmt.Errorf("go bindings: %d manifests for %d index entries", len(mans), len(idx.Kernels))
	}
	if len(mans) == 0 {
		return gen.OutputFile{}, errors.New("go bindings: no kernels")
	}
	ks, disp, err := bindPlan(idx, mans)
	if err != nil {
		return gen.OutputFile{}, fmt.Errorf("go bindings: %w", err)
	}
	ds, err := dispatchPlan(idx, ks, disp)
	if err != nil {
		return gen.OutputFile{}, fmt.Errorf("go bindings: %w", err)
	}
	f := jen.NewFilePathName("", pkg)
	f.HeaderComment("Code generated by swigen. DO NOT EDIT.")
	f.ImportName(cuPath, "cu")
	f.ImportName(launchPath, "launch")
	f.Anon("embed")
	packageDoc(f, pkg, ks, disp, idx)

	for _, g := range goKinds {
		if !slices.ContainsFunc(ks, func(k *bindKernel) bool { return k.kind.kind == g.kind }) {
			continue // only the argument types the package's launchers take
		}
		f.Commentf("%s are the device buffers and sizes of one %s call (see", g.args, g.kind)
		f.Commentf("launch.%s).", g.args)
		f.Type().Id(g.args).Op("=").Qual(launchPath, g.args)
		f.Line()
	}
	for _, k := range ks {
		kernelDecls(f, k)
	}
	ds.elementwiseDecls(f)
	for _, d := range disp {
		if plans := ds.plans[d.typ]; len(plans) > 0 {
			dispatcherPlanDecls(f, d, plans, dispatcherBindings(d))
			continue
		}
		dispatcherDecls(f, d)
	}
	loadHelper(f, pkg)

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return gen.OutputFile{}, fmt.Errorf("go bindings: render: %w", err)
	}
	return gen.OutputFile{Name: File, Data: buf.Bytes()}, nil
}

// kernelTypeName is the launcher type of the kernel named name, of kind g:
// goIdent(name) with the kind's words spelled as g.ident (fwd_gateup_... ->
// FwdGateUp..., like launch.FwdGateUpArgs), so a kernel's type, its kind's
// dispatcher and its argument type share one prefix.
func kernelTypeName(g goKind, name string) (string, error) {
	id, err := goIdent(name)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(name, string(g.kind)+"_") {
		return "", fmt.Errorf("kernel name %q: does not start with its kind %s", name, g.kind)
	}
	kindID, err := goIdent(string(g.kind))
	if err != nil {
		return "", err
	}
	// goIdent maps word by word, so the kind's words map to kindID.
	return g.ident + strings.TrimPrefix(id, kindID), nil
}

// bindPlan derives and checks every identifier and embedded file name.
func bindPlan(idx gen.Index, mans []manifest.Manifest) ([]*bindKernel, []*dispatcher, error) {
	used := map[string]string{} // identifier -> what it names
	claim := func(id, what string) error {
		if prev, ok := used[id]; ok {
			return fmt.Errorf("identifier %s of %s already names %s", id, what, prev)
		}
		used[id] = what
		return nil
	}
	// Every kind's argument type is reserved, declared or not, so whether a
	// kernel's identifiers are accepted does not depend on the other kinds
	// in the emit.
	reserved := []string{"load"}
	for _, g := range goKinds {
		reserved = append(reserved, g.args)
	}
	for _, id := range reserved {
		if err := claim(id, "the bindings' helpers"); err != nil {
			return nil, nil, err
		}
	}
	var (
		ks   []*bindKernel
		errs []error
	)
	for i, e := range idx.Kernels {
		m := mans[i]
		if m.Name != e.Name || m.ConfigHash != e.ConfigHash || m.Arch != e.Arch || string(m.Config.Kernel) != e.Kernel {
			errs = append(errs, fmt.Errorf("%s: manifest (%s, %s, %s, %s) does not match its index entry", e.Name, m.Name, m.Config.Kernel, m.Arch, m.ConfigHash))
			continue
		}
		g, ok := goKindOf(m.Config.Kernel)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: kernel kind %q has no Go launcher (want one of %s)", e.Name, m.Config.Kernel, goKindNames()))
			continue
		}
		id, err := kernelTypeName(g, e.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, fn := range []string{e.Manifest, e.Cubin} {
			if fn != "" && !embedNameRE.MatchString(fn) {
				errs = append(errs, fmt.Errorf("%s: file name %q: must match %s to be a //go:embed pattern", e.Name, fn, embedNameRE))
			}
		}
		if (e.Cubin == "") != (e.CubinSHA256 == "") {
			errs = append(errs, fmt.Errorf("%s: index has cubin %q with sha256 %q: want both or neither", e.Name, e.Cubin, e.CubinSHA256))
		}
		k := &bindKernel{e: e, m: m, kind: g, typ: id, load: "Load" + id, man: "manifest" + id, binding: "binding" + id}
		if e.Cubin != "" {
			k.cubin = "cubin" + id
		}
		for _, c := range [][2]string{{k.typ, "type"}, {k.load, "func"}, {k.man, "var"}, {k.cubin, "var"}, {k.binding, "var"}} {
			if c[0] != "" {
				if err := claim(c[0], c[1]+" of "+e.Name); err != nil {
					errs = append(errs, err)
				}
			}
		}
		ks = append(ks, k)
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	// One dispatcher per kernel kind, when its kernels share a calling
	// convention and no arch repeats: otherwise "the kernel for this
	// device" is ambiguous.
	var out []*dispatcher
	for _, g := range goKinds {
		d := &dispatcher{kind: g, typ: g.ident, load: "Load" + g.ident}
		for _, k := range ks {
			// A plan's unfused gemm has its per-config launcher only: it
			// must not turn "the gemm for this device" ambiguous.
			if k.kind.kind == g.kind && !k.e.UnfusedOnly {
				d.kernels = append(d.kernels, k)
			}
		}
		if len(d.kernels) == 0 || !dispatchable(d.kernels) {
			continue
		}
		if err := errors.Join(claim(d.typ, "type of "+string(g.kind)), claim(d.load, "func of "+string(g.kind))); err != nil {
			return nil, nil, err
		}
		out = append(out, d)
	}
	return ks, out, nil
}

// callConv is what a caller must know about a kernel to fill its
// arguments right: the element type, the operand layouts and the optional
// tensors (StoreOut: bwd_dswiglu's out, fwd_gateup's de; Residual:
// fwd_down's residual). Fields a kind does not use are fixed by
// validation, so comparing all of them is comparing the kind's.
type callConv struct {
	dtype          tiling.DType
	majorA, majorB tiling.Major
	storeOut       bool
	residual       bool
}

func convOf(c tiling.Config) callConv {
	return callConv{dtype: c.DType, majorA: c.MajorA, majorB: c.MajorB, storeOut: c.StoreOut, residual: c.Residual}
}

// dispatchable reports whether ks (kernels of one kind) can share a
// dispatcher: one calling convention and no arch twice.
func dispatchable(ks []*bindKernel) bool {
	seen := map[tiling.Arch]bool{}
	conv := convOf(ks[0].m.Config)
	for _, k := range ks {
		c := k.m.Config
		if seen[c.Arch] || convOf(c) != conv {
			return false
		}
		seen[c.Arch] = true
	}
	return true
}

func packageDoc(f *jen.File, pkg string, ks []*bindKernel, disp []*dispatcher, idx gen.Index) {
	f.PackageComment(fmt.Sprintf("Package %s holds swigen kernels, compiled to cubins and embedded, with", pkg))
	f.PackageComment("typed launchers over github.com/swigen/swigen/runtime/launch. At load it")
	f.PackageComment("picks the cubin for the device's arch and checks that the embedded")
	f.PackageComment("manifest and cubin are the ones this code was generated for.")
	f.PackageComment("")
	f.PackageComment(fmt.Sprintf("Regenerate with swigen emit --go-package %s; check with swigen diff.", pkg))
	if idx.Toolchain != "" {
		f.PackageComment("Compiled with CUDA compiler " + oneLine(idx.Toolchain) + ".")
	} else {
		f.PackageComment("Generated without a CUDA compiler: no cubins are embedded and loading fails.")
	}
	f.PackageComment("")
	f.PackageComment("Kernels:")
	f.PackageComment("")
	for _, k := range ks {
		src := "no cubin"
		if k.cubin != "" {
			src = k.e.Cubin
		}
		f.PackageComment(fmt.Sprintf("  - %s: %s", k.typ, src))
	}
	for _, d := range disp {
		f.PackageComment(fmt.Sprintf("  - %s: %s for the device's arch", d.typ, d.kind.kind))
	}
}

// oneLine keeps text that is not an identifier (the toolchain version)
// inside a single comment line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// stored describes how a row-major operand is laid out for the launcher
// docs: k when the major is K-major, mn otherwise.
func stored(name string, m tiling.Major, k, mn string) string {
	if m == tiling.MNMajor {
		return name + " stored " + mn
	}
	return name + " stored " + k
}

// convention is the calling convention of c in words, for the launcher
// docs: what goes in which field of the kind's argument type, from its
// spec (tiling.KindSpec.GoOperands and the option words).
func convention(c tiling.Config) string {
	parts := []string{string(c.DType)}
	s, _ := tiling.KindOf(c.Kernel)
	for _, o := range s.GoOperands {
		parts = append(parts, operandDoc(o, c))
	}
	if s.Grouped {
		parts = append(parts, "offs [E] int32 cumulative row ends (device only)")
	}
	opt := s.GoNoStoreOut
	if c.StoreOut {
		opt = s.GoStoreOut
	}
	if opt != "" {
		parts = append(parts, opt)
	}
	if c.Residual && s.GoResidual != "" {
		parts = append(parts, s.GoResidual)
	}
	return strings.Join(parts, ", ")
}

// operandDoc says how operand o of c is stored: its shape for c's major,
// or the one shape o has where it has one.
func operandDoc(o tiling.OperandDoc, c tiling.Config) string {
	m := c.MajorB
	if o.A {
		m = c.MajorA
	}
	k, mn := o.K, o.MN
	if k == "" {
		k = mn
	}
	if mn == "" {
		mn = k
	}
	return stored(o.Name, m, k, mn)
}

func kernelDecls(f *jen.File, k *bindKernel) {
	e, c := k.e, k.m.Config
	f.Comment("//go:embed " + e.Manifest)
	f.Var().Id(k.man).Index().Byte()
	f.Line()
	if k.cubin != "" {
		f.Comment("//go:embed " + e.Cubin)
		f.Var().Id(k.cubin).Index().Byte()
		f.Line()
	}
	f.Commentf("%s is what the bindings were generated for,", k.binding)
	f.Comment("with the embedded files.")
	cubin := jen.Nil()
	if k.cubin != "" {
		cubin = jen.Id(k.cubin)
	}
	f.Var().Id(k.binding).Op("=").Op("&").Qual(launchPath, "Binding").Values(jen.Dict{
		jen.Id("Name"):        jen.Lit(e.Name),
		jen.Id("Arch"):        jen.Lit(string(e.Arch)),
		jen.Id("ConfigHash"):  jen.Lit(e.ConfigHash),
		jen.Id("ParamLayout"): jen.Lit(manifest.ParamLayout(k.m.Params)),
		jen.Id("CubinSHA256"): jen.Lit(e.CubinSHA256),
		jen.Id("Manifest"):    jen.Id(k.man),
		jen.Id("Cubin"):       cubin,
	})
	f.Line()
	f.Commentf("%s is the loaded %s kernel", k.typ, c.Kernel)
	f.Comment(e.Name)
	f.Commentf("(%s; %s).", c.Arch, convention(c))
	f.Comment("The embedded *launch.Kernel plans launches (Plan) and unloads (Close).")
	f.Type().Id(k.typ).Struct(jen.Op("*").Qual(launchPath, "Kernel"))
	f.Line()
	cc, _ := ccOf(c.Arch)
	f.Commentf("%s loads the kernel into ctx, whose device", k.load)
	f.Commentf("must be %s (compute capability %s).", c.Arch, cc)
	loadFunc(f, k.load, k.typ, e.Name, jen.Id(k.binding))
	launchMethod(f, k.typ, k.kind)
}

// dispatcherBindings are the bindings a dispatcher chooses among.
func dispatcherBindings(d *dispatcher) []jen.Code {
	var bs []jen.Code
	for _, k := range d.kernels {
		bs = append(bs, jen.Id(k.binding))
	}
	return bs
}

// dispatcherDoc says the calling convention and lists the variants.
func dispatcherDoc(f *jen.File, d *dispatcher) {
	f.Commentf("(%s), one of:", convention(d.kernels[0].m.Config))
	for _, k := range d.kernels {
		f.Comment(fmt.Sprintf("  - %s (%s)", k.e.Name, k.e.Arch))
	}
}

func dispatcherDecls(f *jen.File, d *dispatcher) {
	bs := dispatcherBindings(d)
	f.Commentf("%s is the %s kernel for the device's arch", d.typ, d.kind.kind)
	dispatcherDoc(f, d)
	f.Type().Id(d.typ).Struct(jen.Op("*").Qual(launchPath, "Kernel"))
	f.Line()
	f.Commentf("%s loads the %s kernel whose arch matches ctx's device.", d.load, d.kind.kind)
	loadFunc(f, d.load, d.typ, string(d.kind.kind), bs...)
	launchMethod(f, d.typ, d.kind)
}

func ccOf(a tiling.Arch) (string, bool) {
	for _, cc := range [][2]int{{9, 0}, {10, 0}} {
		if got, ok := tiling.ArchForCC(cc[0], cc[1]); ok && got == a {
			return fmt.Sprintf("%d.%d", cc[0], cc[1]), true
		}
	}
	return "unknown", false
}

func loadFunc(f *jen.File, name, typ, what string, bindings ...jen.Code) {
	args := append([]jen.Code{jen.Id("ctx"), jen.Lit(what)}, bindings...)
	f.Func().Id(name).Params(jen.Id("ctx").Op("*").Qual(cuPath, "Context")).Params(jen.Op("*").Id(typ), jen.Error()).Block(
		jen.List(jen.Id("k"), jen.Err()).Op(":=").Id("load").Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(typ).Values(jen.Dict{jen.Id("Kernel"): jen.Id("k")}), jen.Nil()),
	)
	f.Line()
}

func launchMethod(f *jen.File, typ string, g goKind) {
	f.Comment("Launch checks a's shape, encodes the tensor maps and enqueues one call on")
	f.Comment("a.Stream. To launch one shape many times, plan once with Plan.")
	f.Func().Params(jen.Id("k").Op("*").Id(typ)).Id("Launch").Params(jen.Id("a").Id(g.args)).Error().Block(
		jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("k").Dot("Plan").Call(jen.Id("a")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("p").Dot("Launch").Call()),
	)
	f.Line()
}

func loadHelper(f *jen.File, pkg string) {
	wrap := func(format string, args ...jen.Code) jen.Code {
		return jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(append([]jen.Code{jen.Lit(pkg + ": load %s: " + format)}, args...)...))
	}
	ifErr := func(format string, args ...jen.Code) jen.Code {
		return jen.If(jen.Err().Op("!=").Nil()).Block(wrap(format, append([]jen.Code{jen.Id("what")}, args...)...))
	}
	f.Comment("load picks, among bs, the binding for ctx's device, checks that its")
	f.Comment("embedded manifest and cubin are the ones the bindings were generated for,")
	f.Comment("and loads the cubin.")
	f.Func().Id("load").Params(
		jen.Id("ctx").Op("*").Qual(cuPath, "Context"),
		jen.Id("what").String(),
		jen.Id("bs").Op("...").Op("*").Qual(launchPath, "Binding"),
	).Params(jen.Op("*").Qual(launchPath, "Kernel"), jen.Error()).Block(
		jen.Id("dev").Op(":=").Id("ctx").Dot("Device").Call(),
		jen.List(jen.Id("name"), jen.Err()).Op(":=").Id("dev").Dot("Name").Call(),
		ifErr("device name: %w", jen.Err()),
		jen.List(jen.Id("major"), jen.Id("minor"), jen.Err()).Op(":=").Id("dev").Dot("ComputeCapability").Call(),
		ifErr("compute capability of %s: %w", jen.Id("name"), jen.Err()),
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(launchPath, "SelectBinding").Call(jen.Id("name"), jen.Id("major"), jen.Id("minor"), jen.Id("bs")),
		ifErr("%w", jen.Err()),
		jen.List(jen.Id("man"), jen.Err()).Op(":=").Id("b").Dot("Check").Call(),
		ifErr("%w", jen.Err()),
		jen.List(jen.Id("k"), jen.Err()).Op(":=").Qual(launchPath, "Load").Call(jen.Id("ctx"), jen.Id("dev"), jen.Id("b").Dot("Cubin"), jen.Id("man")),
		ifErr("%w", jen.Err()),
		jen.Return(jen.Id("k"), jen.Nil()),
	)
}
