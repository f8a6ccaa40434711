package manifest

import (
	"fmt"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// Rule is one shape rule: Size must be at least Min and, where Multiple is
// set, a multiple of it. A violation reads "<size>=<value>: <message>".
type Rule struct {
	Size     Expr   `json:"size"`
	Min      int64  `json:"min"`
	Multiple int64  `json:"multiple,omitempty"`
	Message  string `json:"message"`
}

// violated reports whether v breaks r.
func (r Rule) violated(v int64) bool {
	return v < r.Min || r.Multiple > 0 && v%r.Multiple != 0
}

// CheckSizes checks s against every shape rule and returns one error
// listing every violation ("bad shape: M=0: must be >= 1; K=12: ..."), or
// an error naming a size the rules need and s lacks.
func (m *Manifest) CheckSizes(s Sizes) error {
	var bad []string
	for _, r := range m.ShapeRules {
		v, err := r.Size.Eval(s)
		if err != nil {
			return err
		}
		if r.violated(v) {
			bad = append(bad, fmt.Sprintf("%s=%d: %s", r.Size, v, r.Message))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("bad shape: %s", strings.Join(bad, "; "))
	}
	return nil
}

// positive is the rule every size of a launch obeys.
func positive(size string) Rule {
	return Rule{Size: Expr(size), Min: 1, Message: "must be >= 1"}
}

// tmaPitchBytes is TMA's global-stride unit: every row pitch a positive
// multiple of 16 bytes.
const tmaPitchBytes = 16

// pitchElems is how many elements of cfg's type make tmaPitchBytes (8 of
// a 16-bit type).
func pitchElems(cfg tiling.Config) int64 { return int64(tmaPitchBytes / max(1, cfg.DType.Size())) }

// pitch is TMA's global-stride rule for a row-major tensor of cfg's type
// whose rows are size elements: each row a positive multiple of 16 bytes.
// what names the tensors whose rows these are.
func pitch(cfg tiling.Config, size, what string) Rule {
	n := pitchElems(cfg)
	return Rule{Size: Expr(size), Min: n, Multiple: n,
		Message: fmt.Sprintf("must be a positive multiple of %d (%s rows must be 16-byte multiples for TMA)", n, what)}
}

// gatePitch is pitch for the I of a [rows,2I] de whose gate half starts I
// elements into each row; why says which strides need it.
func gatePitch(cfg tiling.Config, why string) Rule {
	n := pitchElems(cfg)
	return Rule{Size: "I", Min: n, Multiple: n,
		Message: fmt.Sprintf("must be a positive multiple of %d (the gate half of de starts I elements into each row; %s)", n, why)}
}
