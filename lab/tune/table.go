package tune

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// TableCommand is the command that builds a table from inputs and the
// plan record directories plans into out ("" for stdout), as the table
// records it in Source: how to regenerate it.
func TableCommand(inputs, plans []string, out string) string {
	cmd := "swigen tune table " + strings.Join(inputs, " ")
	for _, p := range plans {
		cmd += " --plan " + p
	}
	if out != "" {
		cmd += " -o " + out
	}
	return cmd + " (generated: do not edit)"
}

// Table builds the heuristic's measured table (tiling.MeasuredTable) from
// results DBs, merged as Merge does: one row per key with a winner (Entry.Best: a full
// measurement, never a screened one), sorted by kind, arch, dtype, mode
// and shape, so the same DBs give the same bytes. Keys that differ only
// in GPU, driver, compiler or templates would give one shape two rows:
// that is an error, as is a table that mixes GPUs for one arch (build one
// table per GPU kind). Entries without a winner are skipped. plans, the
// same-run timings of both paths (ReadPlanRecords), go into the rows of
// their shapes: the dispatch plan's points.
func Table(dbs []*DB, plans []PlanRecord, source string) (*tiling.MeasuredTable, error) {
	t := &tiling.MeasuredTable{Format: tiling.MeasuredFormat, Source: source, Rows: []tiling.MeasuredRow{}}
	gpus := map[tiling.Arch]string{}
	for _, e := range Merge(dbs...).Entries {
		best, ok := e.Best()
		if !ok {
			continue
		}
		k := e.Key
		if g, seen := gpus[k.Arch]; seen && g != k.GPU {
			return nil, fmt.Errorf("tune: table: %s results from %s and %s: build one table per GPU kind", k.Arch, g, k.GPU)
		}
		gpus[k.Arch] = k.GPU
		t.Rows = append(t.Rows, tiling.MeasuredRow{Kernel: k.Kernel, Arch: k.Arch, DType: k.DType, StoreOut: k.StoreOut,
			Shape: k.Shape, Config: best.Config, US: best.US, BaselineUS: best.BaselineUS, GPU: k.GPU,
			Experts: k.Experts, Routing: k.Routing})
	}
	slices.SortFunc(t.Rows, compareRows)
	for i := 1; i < len(t.Rows); i++ {
		if compareRows(t.Rows[i-1], t.Rows[i]) == 0 {
			r := t.Rows[i]
			return nil, fmt.Errorf("tune: table: two winners for %s %s %s store_out=%v at %s%s (%s and %s): merge the DBs' entries or drop one",
				r.Kernel, r.Arch, r.DType, r.StoreOut, r.Shape, rowGrouped(r), t.Rows[i-1].Config, r.Config)
		}
	}
	if err := attachPlans(t.Rows, plans); err != nil {
		return nil, fmt.Errorf("tune: table: %w", err)
	}
	// The rows must read back as the heuristic reads them.
	b, err := t.Marshal()
	if err != nil {
		return nil, err
	}
	if _, err := tiling.ParseMeasuredTable(b); err != nil {
		return nil, fmt.Errorf("tune: table: %w", err)
	}
	return t, nil
}

func compareRows(a, b tiling.MeasuredRow) int {
	storeOut := func(r tiling.MeasuredRow) int {
		if r.StoreOut {
			return 1
		}
		return 0
	}
	return cmp.Or(cmp.Compare(a.Kernel, b.Kernel), cmp.Compare(a.Arch, b.Arch), cmp.Compare(a.DType, b.DType),
		cmp.Compare(storeOut(a), storeOut(b)), cmp.Compare(a.Shape.M, b.Shape.M), cmp.Compare(a.Shape.K, b.Shape.K),
		cmp.Compare(a.Shape.I, b.Shape.I), cmp.Compare(rowMajors(a), rowMajors(b)),
		cmp.Compare(a.Experts, b.Experts), cmp.Compare(a.Routing, b.Routing))
}

// rowMajors is the operand majors of r's config ("k/k" for every fused
// row): a gemm shape has one winner per pair of majors.
func rowMajors(r tiling.MeasuredRow) string {
	c, err := tiling.ParseName(r.Config)
	if err != nil {
		return ""
	}
	return string(c.MajorA) + "/" + string(c.MajorB)
}

// rowGrouped is a grouped row's E and routing in words ("" otherwise).
func rowGrouped(r tiling.MeasuredRow) string {
	if r.Experts == 0 {
		return ""
	}
	return fmt.Sprintf(" E=%d %s", r.Experts, r.Routing)
}
