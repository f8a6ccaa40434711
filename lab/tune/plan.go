package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/swigen/swigen/internal/readfile"
	"github.com/swigen/swigen/lab/bench"
	"github.com/swigen/swigen/tiling"
)

// PlanRecord is one shape's same-run timing of a kind's two paths, read
// from a swigen bench --json record (docs/DESIGN.md#bench-result-records)
// of a run that timed the unfused path.
type PlanRecord struct {
	GPU      string
	Kernel   tiling.Kernel
	Arch     tiling.Arch
	DType    tiling.DType
	StoreOut bool
	Shape    tiling.Shape
	Measure  tiling.PlanMeasure
}

// planMaxRelErr is the largest error of the unfused path's output against
// the baseline's that a plan record may have (bench's own tolerance): a
// path that computes something else is no path to dispatch to.
const planMaxRelErr = 1e-2

// ReadPlanRecords reads every *.json bench record in dirs, in name order,
// and keeps those that timed the unfused path; a record that does not
// parse, or one of a probed kernel, is an error naming the file.
func ReadPlanRecords(dirs []string) ([]PlanRecord, error) {
	var out []PlanRecord
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("tune: plan records: %s is not a directory", d)
		}
		paths, err := filepath.Glob(filepath.Join(d, "*.json"))
		if err != nil {
			return nil, err
		}
		slices.Sort(paths)
		for _, p := range paths {
			r, ok, err := readPlanRecord(p)
			if err != nil {
				return nil, fmt.Errorf("tune: plan record %s: %w", p, err)
			}
			if ok {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func readPlanRecord(path string) (PlanRecord, bool, error) {
	b, err := readfile.Read(path, readfile.MaxJSON)
	if err != nil {
		return PlanRecord{}, false, err
	}
	var j bench.Record
	if err := json.Unmarshal(b, &j); err != nil {
		return PlanRecord{}, false, err
	}
	if j.UnfusedUS == 0 {
		return PlanRecord{}, false, nil
	}
	if j.Probe != "" {
		return PlanRecord{}, false, fmt.Errorf("probe %s: a probed kernel's time is not the product's", j.Probe)
	}
	if j.UnfusedRelErr < 0 || j.UnfusedRelErr > planMaxRelErr {
		return PlanRecord{}, false, fmt.Errorf("unfused_rel_err %g: the unfused path's output must match the baseline's within %g (-1: NaN or unwritten)", j.UnfusedRelErr, planMaxRelErr)
	}
	c, err := tiling.ParseName(j.Config)
	if err != nil {
		return PlanRecord{}, false, err
	}
	k, a, d := tiling.Kernel(j.Kernel), tiling.Arch(j.Arch), tiling.DType(j.DType)
	if c.Kernel != k || c.Arch != a || c.DType != d {
		return PlanRecord{}, false, fmt.Errorf("config %s is not a %s %s %s config", j.Config, j.Kernel, j.Arch, j.DType)
	}
	return PlanRecord{GPU: j.GPU, Kernel: k, Arch: a, DType: d, StoreOut: c.StoreOut, Shape: j.Shape,
		Measure: tiling.PlanMeasure{FusedUS: j.US, UnfusedUS: j.UnfusedUS, BaselineUS: j.BaselineUS, Fused: j.Config, Gemm: j.UnfusedGemm}}, true, nil
}

// attachPlans sets each row's Plan from the record of its kind, arch,
// dtype, mode and shape. A record with no such row, or two records for
// one row, is an error: every plan point must sit on a tuned shape.
func attachPlans(rows []tiling.MeasuredRow, plans []PlanRecord) error {
	var errs []error
	for _, p := range plans {
		i := slices.IndexFunc(rows, func(r tiling.MeasuredRow) bool {
			return r.Kernel == p.Kernel && r.Arch == p.Arch && r.DType == p.DType && r.StoreOut == p.StoreOut && r.Shape == p.Shape
		})
		switch {
		case i < 0:
			errs = append(errs, fmt.Errorf("plan record %s %s %s store_out=%v at %s: no tuned row for it", p.Kernel, p.Arch, p.DType, p.StoreOut, p.Shape))
		case rows[i].GPU != p.GPU:
			errs = append(errs, fmt.Errorf("plan record %s %s %s store_out=%v at %s: measured on %s, the row on %s", p.Kernel, p.Arch, p.DType, p.StoreOut, p.Shape, p.GPU, rows[i].GPU))
		case rows[i].Plan != nil:
			errs = append(errs, fmt.Errorf("two plan records for %s %s %s store_out=%v at %s", p.Kernel, p.Arch, p.DType, p.StoreOut, p.Shape))
		default:
			m := p.Measure
			rows[i].Plan = &m
		}
	}
	return errors.Join(errs...)
}
