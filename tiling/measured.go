package tiling

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
)

// MeasuredFormat is the format tag of the measured-winners table.
const MeasuredFormat = "swigen-measured-v1"

// MeasuredRow is one tuned winner: the fastest correct config swigen tune
// measured for a kind, arch, dtype and mode at one shape, with its time
// and its baseline's, from the same run.
type MeasuredRow struct {
	Kernel     Kernel  `json:"kernel"`
	Arch       Arch    `json:"arch"`
	DType      DType   `json:"dtype"`
	StoreOut   bool    `json:"store_out"`
	Shape      Shape   `json:"shape"`
	Config     string  `json:"config"`
	US         float64 `json:"us"`
	BaselineUS float64 `json:"baseline_us"`
	GPU        string  `json:"gpu"`
	// Experts and Routing complete a grouped kind's shape (Shape holds
	// T, the tokens over all experts): the expert count and the routing
	// it was tuned at ("uniform" or "zipf"); left out for the other kinds.
	// The heuristic reads the uniform rows (groupedRoutingRead).
	Experts int    `json:"experts,omitempty"`
	Routing string `json:"routing,omitempty"`
	// Plan, when set, is a same-run timing of the kind's two paths at
	// the shape (kinds with an unfused path): the dispatch plan's data.
	Plan *PlanMeasure `json:"plan,omitempty"`
}

// Speedup is the baseline's time over the winner's (0 when unknown).
func (r MeasuredRow) Speedup() float64 {
	if r.US <= 0 || r.BaselineUS <= 0 {
		return 0
	}
	return r.BaselineUS / r.US
}

// MeasuredTable is the heuristic's table of tuned winners. It is
// generated (swigen tune table, from the results DBs committed under
// bench/results/tune) and embedded; Source says how to regenerate it.
type MeasuredTable struct {
	Format string        `json:"format"`
	Source string        `json:"source"`
	Rows   []MeasuredRow `json:"rows"`
}

// Marshal encodes t as the committed file holds it: indented JSON and a
// final newline, so regenerating it from the same DBs gives the same bytes.
func (t *MeasuredTable) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return nil, fmt.Errorf("tiling: encode the measured table: %w", err)
	}
	return append(b, '\n'), nil
}

// ParseMeasuredTable decodes and checks a table: its format, and that
// every row's config parses, validates, is implemented and is a config of
// the row's kind, arch, dtype and mode.
func ParseMeasuredTable(b []byte) (*MeasuredTable, error) {
	var t MeasuredTable
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("tiling: measured table: %w", err)
	}
	if t.Format != MeasuredFormat {
		return nil, fmt.Errorf("tiling: measured table: format %q, want %q", t.Format, MeasuredFormat)
	}
	var errs []error
	for i, r := range t.Rows {
		if err := r.check(); err != nil {
			errs = append(errs, fmt.Errorf("row %d (%s): %w", i, r.Config, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("tiling: measured table: %w", err)
	}
	return &t, nil
}

func (r MeasuredRow) check() error {
	c, err := ParseName(r.Config)
	if err != nil {
		return err
	}
	if c.Kernel != r.Kernel || c.Arch != r.Arch || c.DType != r.DType || c.StoreOut != r.StoreOut {
		return fmt.Errorf("the config is %s %s %s store_out=%v, the row %s %s %s store_out=%v",
			c.Kernel, c.Arch, c.DType, c.StoreOut, r.Kernel, r.Arch, r.DType, r.StoreOut)
	}
	if err := legality(c); err != nil {
		return err
	}
	if r.Kernel.Grouped() != (r.Experts > 0) || (r.Experts > 0) != (r.Routing != "") {
		return fmt.Errorf("experts %d, routing %q on a %s row: a grouped kind's row has both, another kind's neither", r.Experts, r.Routing, r.Kernel)
	}
	if r.Plan != nil {
		if err := r.Plan.check(r.Kernel); err != nil {
			return err
		}
	}
	return r.Shape.Validate()
}

// MaxMeasuredDistance is how far in log space (MeasuredChoice.Distance)
// a tuned shape may be from the asked one for the heuristic to take its
// winner; farther, the rules decide. ln 2: within a factor of two in one
// size. On the H200 the nearest winner beat the rules' config within it
// (fwd_gateup at 6144,5120,13824, distance 0.37: 1.02x against 0.95x the
// baseline; at 16384,2048,5632, 0.61: 1.10x against 1.01x) and lost
// beyond it for bwd_dswiglu (1024,4096,11008, 1.32: 0.90x against 0.98x;
// 32768,4096,1792, 0.98: 0.97x against 1.02x), where the winner depends on
// whether W_down stays in L2 and how the tiles fill the SMs
// (docs/PERFORMANCE.md#measured-heuristic).
const MaxMeasuredDistance = math.Ln2

//go:embed measured.json
var measuredJSON []byte

// Measured returns the embedded table of tuned winners.
var Measured = sync.OnceValues(func() (*MeasuredTable, error) { return ParseMeasuredTable(measuredJSON) })

// MeasuredChoice is the row the measured heuristic took for a shape.
type MeasuredChoice struct {
	Row MeasuredRow
	// Distance is the log-space distance from the asked shape to the
	// row's: sqrt of the summed squared natural logs of the size ratios
	// (0: the shape itself was tuned; 0.69: one size twice or half).
	Distance float64
	// FromDType is set when the row was measured in another dtype (no
	// row of the asked one): the config is the same tile in the asked
	// dtype.
	FromDType DType
}

// nearest is the row of t for kind k, arch a and mode storeOut
// nearest to s in log space, among the rows of dtype d, or, when d has
// none, of the type it is measured as (DTypeSpec.MeasuredAs: one of the
// same tensor-core rate and element size). Ties keep the table's order.
func (t *MeasuredTable) nearest(k Kernel, a Arch, d DType, s Shape, storeOut bool) (MeasuredChoice, bool) {
	rows, dt := t.rowsFor(k, a, d, storeOut)
	best, found := MeasuredChoice{}, false
	for _, r := range rows {
		if dist := LogDistance(s, r.Shape); !found || dist < best.Distance {
			best, found = MeasuredChoice{Row: r, Distance: dist}, true
		}
	}
	if found && dt != d {
		best.FromDType = dt
	}
	return best, found
}

// rowsFor is the rows of t nearest looks among for kind k, arch a, dtype
// d and mode storeOut, in the table's order, and their dtype: d's, or,
// when d has none, its MeasuredAs type's.
func (t *MeasuredTable) rowsFor(k Kernel, a Arch, d DType, storeOut bool) ([]MeasuredRow, DType) {
	dts := []DType{d}
	if s, err := d.Spec(); err == nil && s.MeasuredAs != "" {
		dts = append(dts, s.MeasuredAs)
	}
	for _, dt := range dts {
		var rows []MeasuredRow
		for _, r := range t.Rows {
			if r.Kernel == k && r.Arch == a && r.DType == dt && r.StoreOut == storeOut && (r.Routing == "" || r.Routing == groupedRoutingRead) {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			return rows, dt
		}
	}
	return nil, ""
}

// groupedRoutingRead is the routing of the grouped rows the heuristic
// reads: a call's shape has no routing (nor E), and a balanced router is
// what a trained MoE aims for; rows of other routings are the record.
// The distance to a grouped row is over T, K and I, as for a dense one.
const groupedRoutingRead = "uniform"

// LogDistance is how far apart two shapes are: the Euclidean distance of
// their sizes' logarithms, so a shape twice as large in one size is as far
// as one half as large.
func LogDistance(a, b Shape) float64 {
	l := func(x, y int) float64 { return math.Log(float64(x) / float64(y)) }
	dm, dk, di := l(a.M, b.M), l(a.K, b.K), l(a.I, b.I)
	return math.Sqrt(dm*dm + dk*dk + di*di)
}

// config is the choice's config for dtype d: the row's tile in d, as
// tuned (its L2 policy too: the winners at 8192,8192,3584 and
// 8192,8192,28672 keep _l2k with a 56 and a 448 MB W_down, against the
// rules' 16 MB bound). It fails when that config is invalid or not
// implemented in d, and the rules decide.
func (m MeasuredChoice) config(d DType) (Config, error) {
	c, err := ParseName(m.Row.Config)
	if err != nil {
		return Config{}, err
	}
	c.DType = d
	if err := legality(c); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Why says in one line why the heuristic took the choice's config.
func (m MeasuredChoice) Why() string {
	r := m.Row
	where := fmt.Sprintf("tuned at this shape on %s", r.GPU)
	if m.Distance > 0 {
		where = fmt.Sprintf("at the nearest tuned shape, %s (log distance %.2f), on %s", FormatKindShape(r.Kernel, r.Shape), m.Distance, r.GPU)
	}
	s := "measured: the winner " + where
	if sp := r.Speedup(); sp > 0 {
		s += fmt.Sprintf(", %.2fx the baseline there", sp)
	}
	if r.Experts > 0 {
		s += fmt.Sprintf(" (E=%d, %s routing)", r.Experts, r.Routing)
	}
	if m.FromDType != "" {
		s += fmt.Sprintf(" (tuned in %s)", m.FromDType)
	}
	return s
}
