package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kindRegistry is the file that defines the kind constants and their
// KindSpecs (docs/DESIGN.md#adding-a-kind).
const kindRegistry = "tiling/kinds.go"

// kindImplMaps are the files allowed to name kind constants because they
// hold one implementation map keyed by kind (behaviour the package owns,
// tested complete against tiling.Kinds): a new kind adds one entry to
// each.
var kindImplMaps = map[string]bool{
	"manifest/kinds.go":                true, // kindTables: the parameter tables
	"perfmodel/segment.go":             true, // kernelCosts, Segment.Kernel
	"runtime/launch/args.go":           true, // each kind's argument type
	"runtime/launch/args_moe.go":       true, // the grouped kinds' argument types
	"runtime/launch/args_moe_bwd.go":   true, // moe_bwd_dswiglu's argument type
	"runtime/launch/args_moe_gemm.go":  true, // moe_gemm's argument type
	"runtime/launch/args_moe_wgrad.go": true, // moe_wgrad's argument type
	"lab/ref/gpu.go":                   true, // the naive GPU references
	"lab/check/gemm.go":                true, // the float64 references
	"lab/tune/measure.go":              true, // the baselines tune times against
	"tiling/tilingtest/tilingtest.go":  true,
}

// kindDebt counts the kind-constant mentions of the files not on the
// registry: each is one kind's behaviour (docs/DESIGN.md#adding-a-kind).
// A count may only fall: lower it (or drop the file) when a change
// removes mentions; a file outside this list, the registry and
// kindImplMaps may name none.
var kindDebt = map[string]int{
	"gen/probe.go":      1, // noepi's hook is written for bwd_dswiglu's dense epilogue
	"perfmodel/tile.go": 1, // ModelKernel: the datasheet and per-tile models count bwd_dswiglu's work
	"lab/mlp/gateup.go": 1, // BenchFwdGateUp: the MLP bench's fwd_gateup step
}

// TestKindConstantsOnlyInRegistry fails when a non-test Go file names a
// kind constant (tiling.Kernel...) outside the registry, the allowed
// implementation maps and the debt list, or when the debt list is stale.
func TestKindConstantsOnlyInRegistry(t *testing.T) {
	t.Parallel()
	consts := kindConstants(t)
	got := map[string]int{}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == kindRegistry || kindImplMaps[rel] {
			return nil
		}
		if n := countKindMentions(t, path, consts); n > 0 {
			got[rel] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kindDebt, got); diff != "" {
		t.Errorf("kind constants named outside %s and the implementation maps (-kindDebt +found); look the kind up in tiling.KindOf instead, or lower kindDebt:\n%s", kindRegistry, diff)
	}
}

// kindConstants returns the names of the constants of type Kernel that
// the registry declares.
func kindConstants(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", kindRegistry), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Kernel" {
				for _, n := range v.Names {
					names[n.Name] = true
				}
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s declares no constants of type Kernel", kindRegistry)
	}
	return names
}

// countKindMentions counts the identifiers of path that name a kind
// constant: tiling.X from other packages, X inside package tiling.
func countKindMentions(t *testing.T, path string, consts map[string]bool) int {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.SelectorExpr:
			if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "tiling" && consts[x.Sel.Name] {
				n++
			}
			return false
		case *ast.Ident:
			if f.Name.Name == "tiling" && consts[x.Name] {
				n++
			}
		}
		return true
	})
	return n
}
