// Package pick turns the commands' config selection (the heuristic,
// --tuned, --name, --catalog, --space and the field flags) into configs,
// with the notes and errors the CLI prints. Request is every command's
// selection: emit and diff resolve it for several kernels and arches
// (Configs), verify and bench for the GPU's one arch (ConfigsOn) or per
// shape (Jobs). It reads the flags' words as given, so every rule and
// message lives here and the commands only copy their flags in.
package pick

import (
	"github.com/swigen/swigen/internal/badinput"
	"github.com/swigen/swigen/tiling"
)

// TunedFunc looks up the winner of a results DB at path for the
// heuristic's config heur at shape (lab/tune's DB, which this
// package cannot link): the config to use and a note saying which it is.
type TunedFunc func(path string, heur tiling.Config, shape tiling.Shape, storeOut bool) (tiling.Config, string, error)

// Request is a command's config selection: the flags' words as given.
// Kernels, Arches, DType and Shape pick the heuristic's configs, which
// --tuned's winners replace and the field flags (Fields) override; Name
// (emit's one --name), Names (verify's and bench's repeatable --name),
// Catalog and Space replace the heuristic. Only the flags in Changed
// count as given.
type Request struct {
	Kernels []string // --kernel, repeatable or comma-separated (verify and bench: one)
	Arches  []string // emit's --arch; verify and bench take the GPU's
	DType   string
	Shape   string // the shape the heuristic picks for (verify and bench: --heuristic-shape)
	Name    string // emit's --name: exactly one config, no field flag
	// Names are verify's and bench's --name: configs by procedural name,
	// each on the GPU's arch.
	Names   []string
	Catalog bool
	// Space selects every config of the tuning space (tiling.Space) of
	// the GPU's arch (verify and bench).
	Space bool
	Tuned string // --tuned: a swigen tune results DB whose winners replace the heuristic
	// TunedConfig looks up --tuned's winners.
	TunedConfig TunedFunc
	// HeuristicStoreOut picks the heuristic's StoreOut config
	// (tiling.HeuristicStoreOut) when no config is named, without
	// overriding a field: bench's --store-out.
	HeuristicStoreOut bool
	// Fields holds the field flags given (those of tiling.Knobs), by
	// name: each flag's words as the flag read them, one but for a list
	// flag (--schedule).
	Fields map[string][]string
	// Changed holds the names of the flags given on the command line;
	// only those override the heuristic.
	Changed map[string]bool
}

// Kernel is the kind of a one-kernel selection (verify's and bench's
// --kernel): the first of Kernels, "" when there is none.
func (o *Request) Kernel() string {
	if len(o.Kernels) == 0 {
		return ""
	}
	return o.Kernels[0]
}

// StoreOut reports whether the heuristic picks its StoreOut config:
// --store-out given true (a field flag) or HeuristicStoreOut.
func (o *Request) StoreOut() bool {
	w := o.Fields["store-out"]
	return o.HeuristicStoreOut || len(w) == 1 && w[0] == "true"
}

// heuristic is the heuristic's config of kind k on arch a at shape s,
// its StoreOut variant when StoreOut says so (with out stored
// bwd_dswiglu keeps 128x128: the ring beside out's buffers).
func (o *Request) heuristic(k tiling.Kernel, a tiling.Arch, d tiling.DType, s tiling.Shape) (tiling.Config, error) {
	if o.StoreOut() {
		return tiling.HeuristicStoreOut(k, a, d, s)
	}
	return tiling.Heuristic(k, a, d, s)
}

// UsageError marks an error of the selection's words (bad input, which
// the CLI exits 2 on) from a failure to choose.
type UsageError = badinput.Error

func usage(err error) error { return &UsageError{Err: err} }
