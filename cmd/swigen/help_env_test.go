package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envReads returns the environment variables the Go files under dirs
// (tests left out) read: the literal argument of every Getenv, getenv or
// LookupEnv call, and the literals of a []string a loop ranges over to
// call one with its element.
func envReads(t *testing.T, dirs ...string) map[string][]string {
	t.Helper()
	reads := map[string][]string{}
	isGet := func(n ast.Node) (*ast.CallExpr, bool) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return nil, false
		}
		switch f := call.Fun.(type) {
		case *ast.SelectorExpr:
			return call, f.Sel.Name == "Getenv" || f.Sel.Name == "LookupEnv"
		case *ast.Ident:
			return call, f.Name == "getenv"
		}
		return nil, false
	}
	lit := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := isGet(n); ok && len(call.Args) == 1 {
					if s, ok := lit(call.Args[0]); ok {
						reads[s] = append(reads[s], p)
					}
				}
				rs, ok := n.(*ast.RangeStmt)
				if !ok {
					return true
				}
				cl, ok := rs.X.(*ast.CompositeLit)
				v, okV := rs.Value.(*ast.Ident)
				if !ok || !okV {
					return true
				}
				uses := false
				ast.Inspect(rs.Body, func(n ast.Node) bool {
					if call, ok := isGet(n); ok && len(call.Args) == 1 {
						if id, ok := call.Args[0].(*ast.Ident); ok && id.Name == v.Name {
							uses = true
						}
					}
					return true
				})
				for _, e := range cl.Elts {
					if s, ok := lit(e); ok && uses {
						reads[s] = append(reads[s], p)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return reads
}

// TestHelpListsEnvironment: swigen --help names every environment
// variable the code of the swigen binary reads.
func TestHelpListsEnvironment(t *testing.T) {
	t.Parallel()
	code, help, _ := runCLI(t, "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	_, env, ok := strings.Cut(help, "Environment (every variable swigen reads):\n")
	if !ok {
		t.Fatalf("--help has no Environment section:\n%s", help)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  ([A-Z][A-Z0-9_]+) `).FindAllStringSubmatch(env, -1) {
		listed[m[1]] = true
	}
	reads := envReads(t, "../../cmd", "../../gen", "../../runtime", "../../lab", "../../tiling", "../../manifest", "../../internal")
	for _, v := range []string{"SWIGEN_CUDA_VENV", "CUDA_HOME", "VIRTUAL_ENV", "SWIGEN_CUBLAS"} {
		if reads[v] == nil {
			t.Errorf("the scan finds no read of %s: it misses a way the code reads the environment", v)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(reads)) {
		if !listed[v] {
			t.Errorf("swigen --help does not list %s, which %v reads", v, reads[v])
		}
	}
}
