package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dtypeOwner is the file that declares the operand types and their
// descriptors (docs/DESIGN.md#adding-a-dtype); everything else asks it.
const dtypeOwner = "tiling/dtype.go"

// pyDTypeOwner is the Python runtime's copy of the descriptors, generated
// from the owner.
const pyDTypeOwner = "python/swigen_rt/kinds_gen.py"

// allowed is one file's allowance: how many hits it may have, and why.
type allowed struct {
	n   int
	why string
}

// dtypeNameDebt are the non-test files outside the owner allowed to name an
// operand type (the constants tiling.BF16 and tiling.FP16 in Go, the
// strings "bf16", "fp16", "bfloat16" and "float16" in Go and Python, and
// torch.bfloat16 and torch.float16 in Python). A count may only fall; a
// file not listed may name none.
var dtypeNameDebt = map[string]allowed{
	"tiling/space.go":               {2, "the catalog takes each entry in bf16 and, with its fp16 flag, in fp16 (what CI compiles)"},
	"lab/num/num.go":                {2, "codecs: the host conversion of each type, tested complete against tiling.HelperDTypes"},
	"runtime/cu/tensormap.go":       {2, "dtypeInfo: the driver's CUtensorMapDataType table, every enumerator by name"},
	"python/swigen_rt/tensormap.py": {2, "_DTYPE_INFO: the driver's CUtensorMapDataType table, runtime/cu's twin"},
	"python/swigen_rt/mlp.py":       {1, "SwiGLUMLP's default parameter dtype, a torch default like nn.Linear's"},
	"python/swigen_rt/moe.py":       {3, "torch._grouped_mm's fast path reads bf16 only, so the MoE ops and their module take bf16"},
}

// elemSizeDebt are the non-test files allowed to hard-code an element size
// of 2 (elemSizeHits); a count may only fall, and a file not listed may
// have none.
var elemSizeDebt = map[string]allowed{
	"lab/num/num.go": {1, "codecBytes: a codec's bit pattern is a uint16, so a type of another size is a new codec"},
}

// TestDTypeFactsOnlyInOwner fails when a file outside the dtype
// descriptors names an operand type or hard-codes its element size of 2,
// beyond the debt lists, or when a debt list is stale: ask
// tiling.DType.Spec (Python: kinds_gen.DTYPES) instead.
func TestDTypeFactsOnlyInOwner(t *testing.T) {
	t.Parallel()
	names, sizes := map[string]int{}, map[string]int{}
	walkSources(t, func(rel, path string) {
		if rel == dtypeOwner || rel == pyDTypeOwner {
			return
		}
		var n, s int
		if strings.HasSuffix(rel, ".go") {
			n, s = goDTypeHits(t, path)
		} else {
			n, s = pyDTypeHits(t, path)
		}
		if n > 0 {
			names[rel] = n
		}
		if s > 0 {
			sizes[rel] = s
		}
	})
	if diff := cmp.Diff(counts(dtypeNameDebt), names); diff != "" {
		t.Errorf("operand types named outside %s (-dtypeNameDebt +found): look the type up (tiling.DType.Spec, tiling.DTypes, kinds_gen.DTYPES), or lower the debt:\n%s", dtypeOwner, diff)
	}
	if diff := cmp.Diff(counts(elemSizeDebt), sizes); diff != "" {
		t.Errorf("element size 2 hard-coded outside %s (-elemSizeDebt +found): use tiling.DType.Size or the DTypeSpec's Bytes, or lower the debt:\n%s", dtypeOwner, diff)
	}
}

// TestDTypeHitsCatchSizeTwo keeps the detector honest: each snippet
// hard-codes an element size of 2 the way the code did before the
// descriptor, and each must count.
func TestDTypeHitsCatchSizeTwo(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"const elem = 2 // both operand types are 16-bit",
		"const e = 2",
		"var ElemBytes = 2",
		"const codecBytes int = 2",
		"func f(n int) []byte { return make([]byte, n*2) }",
		"func f(M, I int) []byte { return make([]byte, M*2*I*2) }",
		"func f(b interface{ Alloc(int) (int, error) }, n int) { b.Alloc(2 * n) }",
		"func f(c interface{ MemAlloc(uint64) (int, error) }, elems int) { c.MemAlloc(uint64(elems * 2)) }",
		"func f() { _ = x{ElemBytes: 2} }",
		"func f(M, K int) int { setBytes := 2 * (M*K + K); return setBytes }",
		"func f(M, K int) { _ = bench.Buf{P: nil, N: M * K * 2} }",
		"func f(M, K int) { _ = []Buf{{nil, M * K * 2, true}} }",
	} {
		path := filepath.Join(t.TempDir(), "x.go")
		if err := os.WriteFile(path, []byte("package x\n"+src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, s := goDTypeHits(t, path); s != 1 {
			t.Errorf("%q: %d element-size hits, want 1", src, s)
		}
	}
	for _, src := range []string{
		"func f(M, I, el int) []byte { return make([]byte, M*2*I*el) }",
		"func f(n int, d interface{ Size() int }) []byte { return make([]byte, n*d.Size()) }",
		"const shards = 2",
		"type attr int\nconst attrConstSizeBytes attr = 2",
	} {
		path := filepath.Join(t.TempDir(), "x.go")
		if err := os.WriteFile(path, []byte("package x\n"+src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, s := goDTypeHits(t, path); s != 0 {
			t.Errorf("%q: %d element-size hits, want 0", src, s)
		}
	}
}

func counts(m map[string]allowed) map[string]int {
	out := map[string]int{}
	for f, a := range m {
		out[f] = a.n
	}
	return out
}

// walkSources calls fn with every non-test Go file and every Python source
// of the runtime (python/swigen_rt), outside hidden and testdata folders.
func walkSources(t *testing.T, fn func(rel, path string)) {
	t.Helper()
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
		goSrc := strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
		pySrc := strings.HasPrefix(rel, "python/swigen_rt/") && strings.HasSuffix(rel, ".py")
		if goSrc || pySrc {
			fn(rel, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	// dtypeWords are the operand types' names, swigen's and torch's.
	dtypeWords = map[string]bool{"bf16": true, "fp16": true, "bfloat16": true, "float16": true}
	// sizeName is a name that holds an element size.
	sizeName = regexp.MustCompile(`(?i)^(e|el|elem|\w*elem(ent)?(size|bytes)|\w*bytes(per\w*)?)$`)
	// bytesName is a name that holds a byte count.
	bytesName = regexp.MustCompile(`(?i)bytes$`)
	// byteSinks are the calls whose size argument is a byte count: the
	// device allocators.
	byteSinks = map[string]bool{"Alloc": true, "MemAlloc": true}

	pyNames = regexp.MustCompile(`"(bf16|fp16|bfloat16|float16)"|\btorch\.(bfloat16|float16)\b`)
	pySizes = regexp.MustCompile(`"(bf16|fp16|bfloat16|float16)"\s*:\s*2\b|element_size\(\)\s*[!=]=\s*2\b|\b(el|elem|elem_bytes|elem_size)\s*=\s*2\b|\*\s*2\s*<=\s*self\.l2_keep_max`)
)

// goDTypeHits counts path's operand-type names and its element sizes of 2:
// a size-named constant, variable or field set to 2, and a byte count (of
// make([]byte, n) or a device allocation) that multiplies by a literal 2
// with no element-size factor.
func goDTypeHits(t *testing.T, path string) (names, sizes int) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	two := func(e ast.Expr) bool {
		l, ok := e.(*ast.BasicLit)
		return ok && l.Kind == token.INT && l.Value == "2"
	}
	ast.Inspect(f, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.SelectorExpr:
			if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "tiling" && (x.Sel.Name == "BF16" || x.Sel.Name == "FP16") {
				names++
			}
		case *ast.Ident:
			if f.Name.Name == "tiling" && (x.Name == "BF16" || x.Name == "FP16") {
				names++
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && dtypeWords[s] {
				names++
			}
		case *ast.ValueSpec:
			if id, ok := x.Type.(*ast.Ident); x.Type != nil && (!ok || id.Name != "int") {
				return true // an enumerator of a named type (cu.FuncAttrConstSizeBytes), not a size
			}
			for i, n := range x.Names {
				if i < len(x.Values) && sizeOfTwo(n.Name, x.Values[i], two) {
					sizes++
				}
			}
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && i < len(x.Rhs) && sizeOfTwo(id.Name, x.Rhs[i], two) {
					sizes++
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok && two(x.Value) && sizeName.MatchString(id.Name) {
				sizes++
			}
		case *ast.CallExpr:
			if arg := byteCount(x); arg != nil && bareTwo(arg, two) {
				sizes++
			}
		case *ast.CompositeLit:
			lits := []*ast.CompositeLit{x}
			if arr, ok := x.Type.(*ast.ArrayType); ok && isBuf(arr.Elt) {
				// []Buf{{...}, ...}: the elements' type is elided.
				lits = lits[:0]
				for _, e := range x.Elts {
					if l, ok := e.(*ast.CompositeLit); ok && l.Type == nil {
						lits = append(lits, l)
					}
				}
			} else if !isBuf(x.Type) {
				lits = nil
			}
			for _, l := range lits {
				if n := bufBytes(l); n != nil && bareTwo(n, two) {
					sizes++
				}
			}
		}
		return true
	})
	return names, sizes
}

// sizeOfTwo reports whether name = v hard-codes an element size of 2: a
// size-named value set to 2, or a byte count (a name ending in bytes) that
// multiplies by a bare 2.
func sizeOfTwo(name string, v ast.Expr, two func(ast.Expr) bool) bool {
	return sizeName.MatchString(name) && two(v) || bytesName.MatchString(name) && bareTwo(v, two)
}

// byteCount is the byte-count argument of call, or nil when call is not a
// byte sink.
func byteCount(call *ast.CallExpr) ast.Expr {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		if fn.Name == "make" && len(call.Args) >= 2 {
			if arr, ok := call.Args[0].(*ast.ArrayType); ok {
				if el, ok := arr.Elt.(*ast.Ident); ok && el.Name == "byte" {
					return call.Args[1]
				}
			}
		}
	case *ast.SelectorExpr:
		if byteSinks[fn.Sel.Name] && len(call.Args) >= 1 {
			return call.Args[0]
		}
	}
	return nil
}

// isBuf reports whether ty names lab/bench's Buf (N: a byte count).
func isBuf(ty ast.Expr) bool {
	switch t := ty.(type) {
	case *ast.Ident:
		return t.Name == "Buf"
	case *ast.SelectorExpr:
		return t.Sel.Name == "Buf"
	}
	return false
}

// bufBytes is the byte count N of a Buf literal, keyed or positional.
func bufBytes(lit *ast.CompositeLit) ast.Expr {
	for i, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "N" {
				return kv.Value
			}
		} else if i == 1 {
			return e
		}
	}
	return nil
}

// bareTwo reports whether e, under integer conversions, is a product with
// a literal 2 among its factors and no element-size factor (a size-named
// identifier or field, or a Size() call).
func bareTwo(e ast.Expr, two func(ast.Expr) bool) bool {
	for {
		p, ok := e.(*ast.ParenExpr)
		c, isCall := e.(*ast.CallExpr)
		switch {
		case ok:
			e = p.X
			continue
		case isCall && len(c.Args) == 1:
			if id, ok := c.Fun.(*ast.Ident); ok && strings.HasPrefix(id.Name, "uint") || ok && strings.HasPrefix(id.Name, "int") {
				e = c.Args[0]
				continue
			}
		}
		break
	}
	var factors []ast.Expr
	var flatten func(ast.Expr)
	flatten = func(x ast.Expr) {
		if b, ok := x.(*ast.BinaryExpr); ok && b.Op == token.MUL {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		factors = append(factors, x)
	}
	flatten(e)
	hasTwo := false
	for _, x := range factors {
		switch v := x.(type) {
		case *ast.Ident:
			if sizeName.MatchString(v.Name) {
				return false
			}
		case *ast.SelectorExpr:
			if sizeName.MatchString(v.Sel.Name) {
				return false
			}
		case *ast.CallExpr:
			if s, ok := v.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Size" {
				return false
			}
		}
		hasTwo = hasTwo || two(x)
	}
	return hasTwo
}

// pyDTypeHits counts a Python source's operand-type names and element
// sizes of 2 (pyNames, pySizes), comments left out.
func pyDTypeHits(t *testing.T, path string) (names, sizes int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		names += len(pyNames.FindAllString(line, -1))
		sizes += len(pySizes.FindAllString(line, -1))
	}
	return names, sizes
}
