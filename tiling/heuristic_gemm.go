package tiling

import "fmt"

// HeuristicGemm is the heuristic's gemm config for arch a, type d, shape s
// ({M, K, I: N}) and operand majors ma and mb, and why: the measured
// table's winner at the nearest tuned gemm shape of the same majors within
// MaxMeasuredDistance (a winner's tile may not be implemented in other
// majors: a 176-wide tile needs a K-major B), else the rules'
// (RuleHeuristic) config in those majors.
func HeuristicGemm(a Arch, d DType, s Shape, ma, mb Major) (Config, string, error) {
	if err := s.Validate(); err != nil {
		return Config{}, "", fmt.Errorf("tiling: heuristic: %w", err)
	}
	ma, mb = orK(ma), orK(mb)
	t, err := Measured()
	if err != nil {
		return Config{}, "", fmt.Errorf("tiling: heuristic: %w", err)
	}
	m, ok := t.nearestGemm(a, d, s, ma, mb)
	why := "rules: no tuned gemm shape of these majors in the measured table"
	if ok && m.Distance <= MaxMeasuredDistance {
		c, err := m.config(d)
		if err == nil {
			return c, m.Why(), nil
		}
		why = fmt.Sprintf("rules: the measured winner %s does not apply here (%v)", m.Row.Config, err)
	} else if ok {
		r := m.Row.Shape
		why = fmt.Sprintf("rules: the nearest tuned gemm shape of these majors, %s, is %.2f away in log space (beyond %.2f)",
			FormatKindShape(PlainGEMM(), r), m.Distance, MaxMeasuredDistance)
	}
	c, err := RuleHeuristic(PlainGEMM(), a, d, s, false)
	if err != nil {
		return Config{}, "", err
	}
	c.MajorA, c.MajorB = ma, mb
	if err := legality(c); err != nil {
		return Config{}, "", fmt.Errorf("tiling: heuristic gemm: %w", err)
	}
	return c, why, nil
}

func orK(m Major) Major {
	if m == "" {
		return KMajor
	}
	return m
}

// nearestGemm is nearest for gemm rows whose config has majors ma and mb.
func (t *MeasuredTable) nearestGemm(a Arch, d DType, s Shape, ma, mb Major) (MeasuredChoice, bool) {
	var rows []MeasuredRow
	for _, r := range t.Rows {
		if r.Kernel != PlainGEMM() {
			continue
		}
		if c, err := ParseName(r.Config); err == nil && c.MajorA == ma && c.MajorB == mb {
			rows = append(rows, r)
		}
	}
	sub := &MeasuredTable{Rows: rows}
	return sub.nearest(PlainGEMM(), a, d, s, false)
}
