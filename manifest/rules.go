package manifest

import (
	"fmt"
	"strings"
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

// pitch is TMA's global-stride rule for a row-major tensor whose rows are
// size 16-bit elements: each row a positive multiple of 16 bytes. what
// names the tensors whose rows these are.
func pitch(size, what string) Rule {
	return Rule{Size: Expr(size), Min: 8, Multiple: 8,
		Message: fmt.Sprintf("must be a positive multiple of 8 (%s rows must be 16-byte multiples for TMA)", what)}
}
