package tune

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/lab/check"
	"github.com/swigen/swigen/tiling"
)

// The routings a grouped tune can time (Key.Routing): how T tokens are
// spread over E experts. A grouped winner depends on the expert sizes
// (ragged last tiles, empty experts), so the key records the routing.
const (
	// RoutingUniform sends each token to an expert drawn uniformly (seed
	// 1): expert sizes near T/E, a balanced router.
	RoutingUniform = "uniform"
	// RoutingZipf sends a token to expert j with probability ~ 1/(j+1)^1.2
	// (seed 1, the exponent of the verification's "zipf 16" routing): a
	// badly balanced router, a few experts holding most tokens.
	RoutingZipf = "zipf"
)

// zipfExponent is RoutingZipf's skew.
const zipfExponent = 1.2

// MaxExperts bounds a grouped shape's E: the baseline launches one GEMM
// per expert, and no public MoE model has more than 256 routed experts.
const MaxExperts = 4096

// Routings lists the routings a grouped tune can time.
func Routings() []string { return []string{RoutingUniform, RoutingZipf} }

// ParseRouting checks a --routing value.
func ParseRouting(s string) (string, error) {
	if !slices.Contains(Routings(), s) {
		return "", fmt.Errorf("tune: --routing %q: want one of %s", s, join.Strings(Routings()))
	}
	return s, nil
}

// RoutingCounts are the token counts per expert of routing r for t tokens
// over e experts (deterministic: every worker times the same routing).
func RoutingCounts(r string, t, e int) ([]int, error) {
	switch r {
	case RoutingUniform:
		return check.UniformCounts(1, t, e), nil
	case RoutingZipf:
		return check.ZipfCounts(1, t, e, zipfExponent), nil
	}
	return nil, fmt.Errorf("tune: routing %q: want one of %s", r, join.Strings(Routings()))
}

// ParseGroupedShape reads a grouped kind's --shape: four sizes, the
// kind's own three in its order (tiling.ShapeOrder: M,K,I for
// moe_fwd_gateup and moe_bwd_dswiglu, M,N,K for moe_gemm, M being T, the
// tokens over all experts) followed by E, the expert count, 1 to
// MaxExperts.
func ParseGroupedShape(k tiling.Kernel, s string) (tiling.Shape, int, error) {
	form := tiling.ShapeOrder(k) + ",E"
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return tiling.Shape{}, 0, fmt.Errorf("tune: --shape %q for %s: want four sizes %s (M: the tokens over all experts, E: the expert count), got %d", s, k, form, len(parts))
	}
	sh, err := tiling.ParseKindShape(k, strings.Join(parts[:3], ","))
	if err != nil {
		return tiling.Shape{}, 0, fmt.Errorf("tune: --shape %q for %s (%s): %w", s, k, form, err)
	}
	e, err := strconv.Atoi(strings.TrimSpace(parts[3]))
	if err != nil || e < 1 || e > MaxExperts {
		return tiling.Shape{}, 0, fmt.Errorf("tune: --shape %q for %s: E %q must be an integer from 1 to %d (%s)", s, k, strings.TrimSpace(parts[3]), MaxExperts, form)
	}
	return sh, e, nil
}

// FormatGroupedShape writes a grouped shape as ParseGroupedShape reads it.
func FormatGroupedShape(k tiling.Kernel, s tiling.Shape, experts int) string {
	return fmt.Sprintf("%s,%d", tiling.FormatKindShape(k, s), experts)
}

// groupedProblems lists what makes the grouped part of key k (Experts,
// Routing) one no tune writes: a grouped kind needs both, another kind
// neither.
func (k Key) groupedProblems() []string {
	if !k.Kernel.Grouped() {
		if k.Experts != 0 || k.Routing != "" {
			return []string{fmt.Sprintf("experts %d, routing %q on a %s key: only grouped kinds have them", k.Experts, k.Routing, k.Kernel)}
		}
		return nil
	}
	var ps []string
	if k.Experts < 1 || k.Experts > MaxExperts {
		ps = append(ps, fmt.Sprintf("experts %d on a %s key: want 1 to %d", k.Experts, k.Kernel, MaxExperts))
	}
	if _, err := ParseRouting(k.Routing); err != nil {
		ps = append(ps, fmt.Sprintf("routing %q on a %s key: want one of %s", k.Routing, k.Kernel, join.Strings(Routings())))
	}
	return ps
}
