package gobind

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
)

// dispatchSet is what the bindings embed of an emit's dispatch plans: the
// elementwise module's cubin per arch and, per dispatcher whose kernels
// have plans, the plans with their gemm bindings.
type dispatchSet struct {
	ew    map[tiling.Arch]gen.ElementwiseEntry
	ewVar map[tiling.Arch]string
	// plans holds, per dispatcher type, one launch.DispatchBinding
	// literal per fused kernel with a plan.
	plans map[string][]jen.Code
}

// dispatchPlan derives the dispatch declarations: every plan's fused
// kernel must be one of a dispatcher's kernels (plans follow the
// arch-dispatching launchers) and its gemm a kernel of the emit.
func dispatchPlan(idx gen.Index, ks []*bindKernel, disp []*dispatcher) (*dispatchSet, error) {
	s := &dispatchSet{ew: map[tiling.Arch]gen.ElementwiseEntry{}, ewVar: map[tiling.Arch]string{}, plans: map[string][]jen.Code{}}
	for _, e := range idx.Elementwise {
		if e.Cubin != "" && !embedNameRE.MatchString(e.Cubin) {
			return nil, fmt.Errorf("elementwise cubin %q: must match %s to be a //go:embed pattern", e.Cubin, embedNameRE)
		}
		id, err := goIdent(strings.ReplaceAll(string(e.Arch), "_", ""))
		if err != nil {
			return nil, err
		}
		s.ew[e.Arch], s.ewVar[e.Arch] = e, "elementwise"+id
	}
	byName := map[string]*bindKernel{}
	for _, k := range ks {
		byName[k.e.Name] = k
	}
	owner := map[string]*dispatcher{}
	for _, d := range disp {
		for _, k := range d.kernels {
			owner[k.e.Name] = d
		}
	}
	for _, p := range idx.Dispatch {
		f, g, d := byName[p.Fused], byName[p.Gemm], owner[p.Fused]
		if f == nil || g == nil || d == nil {
			return nil, fmt.Errorf("dispatch plan of %s: its fused kernel must have an arch-dispatching launcher and its gemm %s must be emitted", p.Fused, p.Gemm)
		}
		plan, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		ew, ok := s.ew[f.e.Arch]
		if !ok {
			return nil, fmt.Errorf("dispatch plan of %s: no elementwise module for %s", p.Fused, f.e.Arch)
		}
		cubin := jen.Nil()
		if ew.Cubin != "" {
			cubin = jen.Id(s.ewVar[f.e.Arch])
		}
		s.plans[d.typ] = append(s.plans[d.typ], jen.Values(jen.Dict{
			jen.Id("Plan"):              jen.Index().Byte().Call(jen.Lit(string(plan))),
			jen.Id("Gemm"):              jen.Id(g.binding),
			jen.Id("Elementwise"):       cubin,
			jen.Id("ElementwiseSHA256"): jen.Lit(ew.CubinSHA256),
		}))
	}
	return s, nil
}

// elementwiseDecls embeds the elementwise module's cubins.
func (s *dispatchSet) elementwiseDecls(f *jen.File) {
	for _, a := range tiling.Arches() {
		e, ok := s.ew[a]
		if !ok || e.Cubin == "" {
			continue
		}
		f.Comment("//go:embed " + e.Cubin)
		f.Var().Id(s.ewVar[a]).Index().Byte()
		f.Line()
	}
}

// planVar is the name of a dispatcher's plans variable.
func planVar(d *dispatcher) string { return "dispatch" + d.typ }

// dispatcherPlanDecls declares a dispatcher that follows dispatch plans:
// its plans, its type with the loaded launch.Dispatch, a loader that
// loads the unfused path beside the fused kernel, and Launch, Path,
// WorkspaceBytes and Close that go through the plan.
func dispatcherPlanDecls(f *jen.File, d *dispatcher, plans []jen.Code, bs []jen.Code) {
	pv := planVar(d)
	f.Commentf("%s are the dispatch plans of the %s kernels (manifest.Dispatch),", pv, d.kind.kind)
	f.Comment("with the unfused path's gemm binding and elementwise cubin.")
	f.Var().Id(pv).Op("=").Index().Qual(launchPath, "DispatchBinding").Values(plans...)
	f.Line()
	f.Commentf("%s is the %s kernel for the device's arch, launched as its", d.typ, d.kind.kind)
	f.Comment("dispatch plan says: fused, or the unfused path (swigen's gemm, then the")
	f.Comment("elementwise kernel) at shapes where the measured plan takes it; that path's")
	f.Comment("intermediate is the launcher's own (freed by Close) unless a.Workspace gives")
	f.Comment("one (WorkspaceBytes). The embedded *launch.Kernel is the")
	f.Comment("fused kernel: its Plan is always fused. The fused kernel takes")
	dispatcherDoc(f, d)
	f.Type().Id(d.typ).Struct(jen.Op("*").Qual(launchPath, "Kernel"), jen.Id("Dispatch").Op("*").Qual(launchPath, "Dispatch"))
	f.Line()
	f.Commentf("%s loads the %s kernel whose arch matches ctx's device, and", d.load, d.kind.kind)
	f.Comment("its unfused path where its plan has one.")
	args := append([]jen.Code{jen.Id("ctx"), jen.Lit(string(d.kind.kind))}, bs...)
	f.Func().Id(d.load).Params(jen.Id("ctx").Op("*").Qual(cuPath, "Context")).Params(jen.Op("*").Id(d.typ), jen.Error()).Block(
		jen.List(jen.Id("k"), jen.Err()).Op(":=").Id("load").Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("dp"), jen.Err()).Op(":=").Qual(launchPath, "LoadDispatch").Call(jen.Id("ctx"), jen.Id("k"), jen.Id(pv).Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("k").Dot("Close").Call(), jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(d.typ).Values(jen.Dict{jen.Id("Kernel"): jen.Id("k"), jen.Id("Dispatch"): jen.Id("dp")}), jen.Nil()),
	)
	f.Line()
	recv := func() *jen.Statement { return jen.Params(jen.Id("k").Op("*").Id(d.typ)) }
	f.Comment("Launch enqueues one call on a.Stream, on the path the plan takes at a's sizes.")
	f.Func().Add(recv()).Id("Launch").Params(jen.Id("a").Id(d.kind.args)).Error().Block(
		jen.Return(jen.Id("k").Dot("Dispatch").Dot("Launch").Call(jen.Id("a"))))
	f.Line()
	f.Comment("Path is the path a call at a's sizes takes, and why.")
	f.Func().Add(recv()).Id("Path").Params(jen.Id("a").Id(d.kind.args)).Params(jen.Qual(tilingPath, "Path"), jen.String()).Block(
		jen.Return(jen.Id("k").Dot("Dispatch").Dot("Path").Call(jen.Id("a"))))
	f.Line()
	f.Commentf("WorkspaceBytes is the size of the workspace a call at a's sizes may pass in a.Workspace (0 when fused; without one the launcher uses its own).")
	f.Func().Add(recv()).Id("WorkspaceBytes").Params(jen.Id("a").Id(d.kind.args)).Params(jen.Int(), jen.Error()).Block(
		jen.Return(jen.Id("k").Dot("Dispatch").Dot("WorkspaceBytes").Call(jen.Id("a"))))
	f.Line()
	f.Comment("Close unloads the unfused path's kernels and the fused kernel.")
	f.Func().Add(recv()).Id("Close").Params().Error().Block(
		jen.Return(jen.Qual("errors", "Join").Call(jen.Id("k").Dot("Dispatch").Dot("Close").Call(), jen.Id("k").Dot("Kernel").Dot("Close").Call())))
	f.Line()
}
