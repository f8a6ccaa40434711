package check

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// Record is one shape's verdict for one config and path, as verify
// --json prints it.
type Record struct {
	Config string `json:"config"`
	Path   string `json:"path,omitempty"` // "unfused" for the unfused path

	Shape tiling.Shape   `json:"shape"`
	Ref   string         `json:"ref"`
	Pass  bool           `json:"pass"`
	Error string         `json:"error,omitempty"`
	Out   []OutputRecord `json:"outputs"`
}

// OutputRecord is one output's error statistics in a Record.
type OutputRecord struct {
	Name     string  `json:"name"`
	RelErr   float64 `json:"rel_err"`
	MaxAbs   float64 `json:"max_abs"`
	NaNs     int     `json:"nans"`
	Poisoned int     `json:"poisoned"`
}

// Verdict is r's line (ok or FAIL, the config name with its path in
// brackets when not the fused one, the shape, the reference and each
// output's errors, or the error) and its Record.
func Verdict(name, path string, r ShapeResult) (string, Record) {
	status, label := "ok  ", name
	if !r.Pass {
		status = "FAIL"
	}
	if path != "" {
		label = name + " [" + path + "]"
	}
	kind := tiling.DefaultKernel() // an unparsable name: the MLP kinds' M,K,I
	if c, err := tiling.ParseName(name); err == nil {
		kind = c.Kernel
	}
	line := fmt.Sprintf("%s %s %s", status, label, tiling.ShapeDims(kind, r.Shape))
	rec := Record{Config: name, Path: path, Shape: r.Shape, Ref: r.Ref, Pass: r.Pass}
	if r.Err != nil {
		rec.Error = r.Err.Error()
		return line + fmt.Sprintf(": %v", r.Err), rec
	}
	line += " ref=" + r.Ref
	for _, x := range r.Outputs {
		line += fmt.Sprintf("  %s rel=%.2e max=%.2e", x.Name, x.Stats.RelFrobenius, x.Stats.MaxAbs)
		if x.Stats.NaNs > 0 || x.Stats.Poisoned > 0 {
			line += fmt.Sprintf(" nan=%d unwritten=%d", x.Stats.NaNs, x.Stats.Poisoned)
		}
		rec.Out = append(rec.Out, OutputRecord{x.Name, x.Stats.RelFrobenius, x.Stats.MaxAbs, x.Stats.NaNs, x.Stats.Poisoned})
	}
	return line, rec
}
