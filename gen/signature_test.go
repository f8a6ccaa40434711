package gen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// signatureRE finds the kernel's parameter list: from the entry point's
// open parenthesis to the body's brace.
var signatureRE = regexp.MustCompile(`(?s)__launch_bounds__\(\d+, 1\) \w+\(\n(.*?)\) \{\n`)

// declRE is one parameter declaration: its C type and name.
var declRE = regexp.MustCompile(`^\s*(const __grid_constant__ sw_tmap|int) (\w+),?$`)

// TestKernelSignatureIsTheManifest: every catalog kernel declares exactly
// the manifest's parameters, in its order, with the C type of each kind.
func TestKernelSignatureIsTheManifest(t *testing.T) {
	t.Parallel()
	ctype := map[string]manifest.Kind{"const __grid_constant__ sw_tmap": manifest.KindTensorMap, "int": manifest.KindI32}
	for _, c := range tiling.Catalog() {
		a, err := renderCfg(c)
		if err != nil {
			t.Fatal(err)
		}
		m := signatureRE.FindStringSubmatch(string(a.Source))
		if m == nil {
			t.Fatalf("%s: no kernel signature in the source", c.Name())
		}
		type decl struct {
			Name string
			Kind manifest.Kind
		}
		var got, want []decl
		for _, line := range strings.Split(m[1], "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			d := declRE.FindStringSubmatch(line)
			if d == nil {
				t.Fatalf("%s: parameter line %q", c.Name(), line)
			}
			got = append(got, decl{d[2], ctype[d[1]]})
		}
		for _, p := range a.Manifest.Params {
			want = append(want, decl{p.Name, p.Kind})
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: signature (-manifest +source):\n%s", c.Name(), d)
		}
	}
}
