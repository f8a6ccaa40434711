package pick

import (
	"fmt"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// ShapeKind is the kind whose order (tiling.ShapeOrder) a one-kernel
// selection's positional --shape and --heuristic-shape are read in: the
// kind of its --name configs when given (they must share one, or only
// the keyed form can say what is meant: mixed is ""), else --kernel.
func (o *Request) ShapeKind() tiling.Kernel {
	var kind tiling.Kernel
	for _, n := range o.Names {
		c, err := tiling.ParseName(n)
		if err != nil {
			continue // Check reports it
		}
		if kind != "" && c.Kernel != kind {
			return ""
		}
		kind = c.Kernel
	}
	if kind != "" {
		return kind
	}
	return tiling.Kernel(o.Kernel())
}

// ParseShapes parses verify's and bench's --shape values (repeatable,
// each ';'-separated) in ShapeKind's order; the keyed form (M=..,K=..,
// I=.. or N=..) is read the same for every kind. Errors are UsageErrors.
func (o *Request) ParseShapes(vals []string) ([]tiling.Shape, error) {
	k := o.ShapeKind()
	var out []tiling.Shape
	for _, v := range vals {
		for _, part := range strings.Split(v, ";") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			s, err := o.parseShape(k, part)
			if err != nil {
				return nil, usage(err)
			}
			out = append(out, s)
		}
	}
	if len(vals) > 0 && len(out) == 0 {
		return nil, usage(fmt.Errorf("--shape %q: no shape given; want %s, or leave the flag out", strings.Join(vals, ";"), tiling.ShapeOrder(k)))
	}
	return out, nil
}

// parseShape reads one shape for kind k; with k "" (names of several
// kinds) only the keyed form, which means the same for every kind.
func (o *Request) parseShape(k tiling.Kernel, s string) (tiling.Shape, error) {
	if k == "" && !strings.Contains(s, "=") {
		return tiling.Shape{}, fmt.Errorf("%q: the --name configs are of several kinds, which read a positional shape in different orders (gemm M,N,K, the others M,K,I); give it keyed, M=..,K=..,I=.. (N for gemm's I)", s)
	}
	return tiling.ParseKindShape(k, s)
}
