package view

import (
	"fmt"
	"strings"

	"github.com/swigen/swigen/manifest"
)

// cTypes are the C declarations of the manifest's parameter kinds. A
// tensor map is passed by value in parameter space (__grid_constant__),
// where TMA reads it.
var cTypes = map[manifest.Kind]string{
	manifest.KindTensorMap: "const __grid_constant__ sw_tmap",
	manifest.KindI32:       "int",
	manifest.KindI64:       "long long",
	manifest.KindPtr:       "const unsigned char*",
	manifest.KindWorkspace: "unsigned char*",
}

// cParams renders the kernel's C parameter list from the manifest's
// parameter table, one parameter a line, a parameter's doc as a comment
// above it; the template closes the list. Rendering from the table is what
// keeps the signature and the manifest from disagreeing.
func cParams(ps []manifest.Param) (string, error) {
	var b strings.Builder
	for i, p := range ps {
		ct, ok := cTypes[p.Kind]
		if !ok {
			return "", fmt.Errorf("parameter %s: kind %q has no C declaration", p.Name, p.Kind)
		}
		if p.Doc != "" {
			fmt.Fprintf(&b, "    // %s\n", p.Doc)
		}
		fmt.Fprintf(&b, "    %s %s", ct, p.Name)
		if i < len(ps)-1 {
			b.WriteString(",\n")
		}
	}
	return b.String(), nil
}
