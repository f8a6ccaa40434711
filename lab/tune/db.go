// Package tune is swigen's autotuner: it sweeps the configs of the tuning
// space for one problem, each measured in a child process so a hang or a
// fault costs only that candidate, records every result in a JSON results
// DB as it goes (so a sweep can be killed and resumed), and renders the
// results as a table and an SVG plot.
package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swigen/swigen/internal/atomicfile"
	"github.com/swigen/swigen/internal/dirlock"
	"github.com/swigen/swigen/internal/readfile"
	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

// DBFormat is the format tag of a results DB file. Bump it when the meaning
// of a field changes; files of another format are rejected, not guessed at.
const DBFormat = "swigen-tune-v1"

// Key identifies one sweep: a result is only comparable with results of
// the same problem on the same GPU, driver, compiler and templates.
type Key struct {
	Kernel    tiling.Kernel `json:"kernel"`
	Arch      tiling.Arch   `json:"arch"`
	DType     tiling.DType  `json:"dtype"`
	Shape     tiling.Shape  `json:"shape"`
	GPU       string        `json:"gpu"`
	Driver    int           `json:"driver"`
	Compiler  string        `json:"compiler"`
	Templates string        `json:"templates"` // templates.Hash
	// StoreOut is the candidates' StoreOut (bwd_dswiglu: also store out;
	// fwd_gateup: also store de, i.e. training). Kernels with and without
	// the second output do different work, so their results never share
	// an entry: no winner, baseline median or early stop mixes them. Left
	// out of the JSON when false, so the keys of earlier DBs are unchanged.
	StoreOut bool `json:"store_out,omitempty"`
	// MajorA and MajorB are a gemm key's operand majors (every candidate
	// runs in them, and the cuBLAS baseline on the same layouts): a step
	// GEMM's winner depends on them. Empty for the fused kinds and for
	// gemm DBs written before majors were keyed (K-major both).
	MajorA tiling.Major `json:"major_a,omitempty"`
	MajorB tiling.Major `json:"major_b,omitempty"`
	// Experts and Routing complete a grouped kind's shape (Shape holds
	// T, the tokens over all experts, and the kind's K and I or N): the
	// expert count and how the tokens are spread over the experts
	// (RoutingUniform, RoutingZipf). Zero and empty for the other kinds,
	// and then left out of the JSON.
	Experts int    `json:"experts,omitempty"`
	Routing string `json:"routing,omitempty"`
}

// String is a one-line form of k, also its sort key in the DB.
func (k Key) String() string {
	s := fmt.Sprintf("%s|%s|%s|%d,%d,%d|%s|%d|%s|%s", k.Kernel, k.Arch, k.DType,
		k.Shape.M, k.Shape.K, k.Shape.I, k.GPU, k.Driver, k.Compiler, k.Templates)
	if k.StoreOut {
		s += "|store_out"
	}
	if k.MajorA != "" || k.MajorB != "" {
		s += fmt.Sprintf("|a=%s,b=%s", k.MajorA, k.MajorB)
	}
	if k.Experts != 0 || k.Routing != "" {
		s += fmt.Sprintf("|e=%d,%s", k.Experts, k.Routing)
	}
	return s
}

// Status is the outcome of one candidate.
type Status string

// The outcomes. Only StatusOK has a time that counts; the others rank as
// +Inf (StatusSlow keeps its probe time for the plot).
const (
	StatusOK      Status = "ok"      // verified and timed
	StatusWrong   Status = "wrong"   // ran but its output is wrong
	StatusCompile Status = "compile" // did not render, compile or pass the build check
	StatusFault   Status = "fault"   // a driver error, a trap, or the worker died
	StatusTimeout Status = "timeout" // did not finish in time; the worker was killed
	StatusSlow    Status = "slow"    // early-stopped: its first samples were far slower than the best
)

// Ceilings are the machine's measured GEMM rate and copy bandwidth
// (perfmodel, their one owner).
type Ceilings = perfmodel.Ceilings

// Result is one candidate's record. Times are medians in microseconds;
// failed candidates keep their reason in Error.
type Result struct {
	Config     string  `json:"config"`
	Status     Status  `json:"status"`
	US         float64 `json:"us,omitempty"`
	P20US      float64 `json:"p20_us,omitempty"`
	P80US      float64 `json:"p80_us,omitempty"`
	BaselineUS float64 `json:"baseline_us,omitempty"` // cuBLAS + elementwise, same run
	RelErr     float64 `json:"rel_err,omitempty"`     // vs the baseline at the tuned shape
	VerifyErr  float64 `json:"verify_rel_err,omitempty"`
	Error      string  `json:"error,omitempty"`
	Device     int     `json:"device"`
	WallS      float64 `json:"wall_s,omitempty"` // the worker's wall time
	Date       string  `json:"date,omitempty"`
	// Screened marks a screening measurement (few repetitions, to rank
	// candidates): it never wins, and a full sweep measures it again.
	Screened bool `json:"screened,omitempty"`
}

// Time is the candidate's median time, or +Inf unless it passed.
func (r Result) Time() float64 {
	if r.Status != StatusOK || r.US <= 0 {
		return math.Inf(1)
	}
	return r.US
}

// Entry is the record of one Key: the ceilings measured for it and one
// Result per config, sorted by config name.
type Entry struct {
	Key      Key      `json:"key"`
	Ceilings Ceilings `json:"ceilings"`
	Results  []Result `json:"results"`
}

// Result returns the record of config name.
func (e *Entry) Result(name string) (Result, bool) {
	i, ok := slices.BinarySearchFunc(e.Results, name, func(r Result, n string) int { return strings.Compare(r.Config, n) })
	if !ok {
		return Result{}, false
	}
	return e.Results[i], true
}

// Set records r, replacing an earlier record of the same config.
func (e *Entry) Set(r Result) {
	i, ok := slices.BinarySearchFunc(e.Results, r.Config, func(x Result, n string) int { return strings.Compare(x.Config, n) })
	if ok {
		e.Results[i] = r
		return
	}
	e.Results = slices.Insert(e.Results, i, r)
}

// Best returns the fastest passing result. A probed kernel never wins (its
// name, <config>_probe_<probe>, parses as no config), nor does a config
// whose StoreOut is not the key's (it did other work).
func (e *Entry) Best() (Result, bool) {
	var best Result
	found := false
	for _, r := range e.Results {
		if r.Status != StatusOK || r.Screened || !e.canWin(r.Config) {
			continue
		}
		if !found || r.Time() < best.Time() {
			best, found = r, true
		}
	}
	return best, found
}

// Provisional returns the fastest passing result, screened ones
// included: the best so far of a tune stopped before any full
// measurement could win. It is a ranking, not a winner (Best).
func (e *Entry) Provisional() (Result, bool) {
	var best Result
	found := false
	for _, r := range e.Results {
		if r.Status != StatusOK || !e.canWin(r.Config) {
			continue
		}
		if !found || r.Time() < best.Time() {
			best, found = r, true
		}
	}
	return best, found
}

// BaselineUS is the median of the baseline times measured alongside the
// passing candidates (each run times the baseline again), or 0.
func (e *Entry) BaselineUS() float64 {
	var xs []float64
	for _, r := range e.Results {
		if r.Status == StatusOK && r.BaselineUS > 0 {
			xs = append(xs, r.BaselineUS)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// FloorUS is the roofline floor of config name at the entry's shape,
// max(FLOPs / GEMM rate, bytes / copy bandwidth), or 0 when the ceilings
// are unknown or the kernel has no cost model.
func (e *Entry) FloorUS(name string) float64 {
	flops, bytes := e.cost(name)
	if flops == 0 {
		return 0
	}
	return e.Ceilings.FloorUS(flops, bytes)
}

// cost is the FLOPs and minimum bytes of one call of config name at the
// entry's shape (a gemm's shape holds M, K and N in I's place), or zeros
// for a kernel without a cost model. The second output counts as the
// name says, or as the key says for a name that does not parse.
func (e *Entry) cost(name string) (flops, bytes float64) {
	sh := e.Key.Shape
	storeOut := e.Key.StoreOut
	if c, err := tiling.ParseName(name); err == nil {
		storeOut = c.StoreOut
	}
	flops, bytes, _ = perfmodel.KernelCost(e.Key.Kernel, sh, storeOut)
	return flops, bytes
}

// FLOPs is the work of one call at the entry's shape, or 0 when the kernel
// has no cost model.
func (e *Entry) FLOPs() float64 {
	f, _ := e.cost("")
	return f
}

// canWin reports whether config name may be the entry's winner: it
// parses (a probed kernel's does not) and writes the key's outputs.
func (e *Entry) canWin(name string) bool {
	c, err := tiling.ParseName(name)
	return err == nil && c.StoreOut == e.Key.StoreOut
}

// DB is a results file: one Entry per Key, sorted by Key.String, so the
// file's bytes depend only on its contents.
type DB struct {
	Format  string   `json:"format"`
	Entries []*Entry `json:"entries"`
}

// NewDB returns an empty DB.
func NewDB() *DB { return &DB{Format: DBFormat} }

// Entry returns the entry of k, or nil.
func (db *DB) Entry(k Key) *Entry {
	for _, e := range db.Entries {
		if e.Key == k {
			return e
		}
	}
	return nil
}

// Upsert returns the entry of k, adding an empty one if there is none.
func (db *DB) Upsert(k Key) *Entry {
	if e := db.Entry(k); e != nil {
		return e
	}
	e := &Entry{Key: k}
	db.Entries = append(db.Entries, e)
	sortEntries(db.Entries)
	return e
}

// sortEntries orders entries by Key.String. The sort is stable because
// two distinct keys can share a String (a GPU name holding a "|"): so
// sorting an already sorted DB keeps its order, and a DB read and written
// again keeps its bytes.
func sortEntries(es []*Entry) {
	slices.SortStableFunc(es, func(a, b *Entry) int { return strings.Compare(a.Key.String(), b.Key.String()) })
}

// ErrInvalidDB is wrapped by every error of a DB path that does not hold
// a results DB: bytes that are not one (not JSON, another format, a null
// entry, a record no tuner writes; see ParseDB) or a directory, so that
// callers can tell bad input from a failure to read.
var ErrInvalidDB = errors.New("not a swigen tune results DB")

// ParseDB decodes a DB file's bytes and checks every record (see
// DB.check). Its errors wrap ErrInvalidDB.
func ParseDB(b []byte) (*DB, error) {
	db := &DB{}
	if err := json.Unmarshal(b, db); err != nil {
		return nil, fmt.Errorf("tune: parse DB: %w: %w", ErrInvalidDB, err)
	}
	if db.Format != DBFormat {
		return nil, fmt.Errorf("tune: parse DB: %w: format %q, want %q", ErrInvalidDB, db.Format, DBFormat)
	}
	// Checked before sorting, so that problems name records by their
	// place in the file.
	if err := db.check(); err != nil {
		return nil, fmt.Errorf("tune: parse DB: %w: %w", ErrInvalidDB, err)
	}
	for _, e := range db.Entries {
		slices.SortFunc(e.Results, func(a, b Result) int { return strings.Compare(a.Config, b.Config) })
	}
	sortEntries(db.Entries)
	return db, nil
}

// maxProblems bounds the problems one error lists: enough to fix a
// hand-edited DB in one pass, few enough to read.
const maxProblems = 10

// check reports what in db no tuner writes, so that a DB edited by hand,
// damaged, or written by a faulty tool is refused instead of trusted: a
// passing record without a positive time would win every lookup, and a
// key no problem has matches nothing. Records are named by their index
// and key or config name. A config name that does not parse is no
// problem: old DBs keep records of configs since removed (and probed
// kernels' names never parse), and winners skip them. Nor is a config
// whose StoreOut is not its key's, which older tunes recorded and
// winners skip too.
func (db *DB) check() error {
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	keys := make(map[Key]int, len(db.Entries))
	for i, e := range db.Entries {
		if e == nil {
			add("entry %d: null entry", i)
			continue
		}
		at := fmt.Sprintf("entry %d (%s)", i, e.Key)
		keyProblems := e.Key.problems()
		for _, p := range keyProblems {
			add("%s: key: %s", at, p)
		}
		if j, dup := keys[e.Key]; dup {
			add("%s: duplicate key (entry %d has it too)", at, j)
		} else {
			keys[e.Key] = i
		}
		for _, c := range []struct {
			name string
			v    float64
		}{{"gemm_tflops", e.Ceilings.GemmTFLOPs}, {"copy_gbs", e.Ceilings.CopyGBs}} {
			if !(c.v >= 0) || math.IsInf(c.v, 0) {
				add("%s: ceilings: %s %v, want a finite non-negative rate (0: not measured)", at, c.name, c.v)
			}
		}
		configs := make(map[string]int, len(e.Results))
		for j, r := range e.Results {
			rat := fmt.Sprintf("%s: result %d", at, j)
			if r.Config == "" {
				add("%s: no config name", rat)
			} else {
				rat += fmt.Sprintf(" (%s)", r.Config)
				if k, dup := configs[r.Config]; dup {
					add("%s: duplicate config (result %d has it too)", rat, k)
				} else {
					configs[r.Config] = j
				}
			}
			// Under a bad key every config would also look misplaced.
			for _, p := range r.problems(e.Key, len(keyProblems) == 0) {
				add("%s: %s", rat, p)
			}
		}
	}
	switch n := len(problems); {
	case n == 0:
		return nil
	case n == 1:
		return errors.New(problems[0])
	case n > maxProblems:
		problems = append(problems[:maxProblems], fmt.Sprintf("and %d more", n-maxProblems))
	}
	return fmt.Errorf("%d problems:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
}

// problems lists what makes k a key no sweep has: an unknown kind, arch
// or dtype, or one not spelled as its constant (it would match no lookup),
// or a shape no kernel runs.
func (k Key) problems() []string {
	var ps []string
	enum := func(what, got, want string, err error) {
		switch {
		case err != nil:
			ps = append(ps, err.Error())
		case got != want:
			ps = append(ps, fmt.Sprintf("%s %q, want %q", what, got, want))
		}
	}
	kk, kerr := tiling.ParseKernel(string(k.Kernel))
	enum("kernel", string(k.Kernel), string(kk), kerr)
	a, err := tiling.ParseArch(string(k.Arch))
	enum("arch", string(k.Arch), string(a), err)
	d, err := tiling.ParseDType(string(k.DType))
	enum("dtype", string(k.DType), string(d), err)
	if err := k.Shape.Validate(); err != nil {
		ps = append(ps, err.Error())
	}
	if kerr == nil {
		ps = append(ps, k.groupedProblems()...)
	}
	return ps
}

// problems lists what makes r a record no tuner writes under key k: an
// unknown status, a passing record without a positive time, a negative
// or non-finite measurement (failed records may have zeros), or, when
// keyOK, a config of another kernel, arch or dtype than the key's.
func (r Result) problems(k Key, keyOK bool) []string {
	var ps []string
	switch r.Status {
	case StatusOK, StatusWrong, StatusCompile, StatusFault, StatusTimeout, StatusSlow:
	default:
		ps = append(ps, fmt.Sprintf("unknown status %q", r.Status))
	}
	if r.Status == StatusOK && !(r.US > 0 && !math.IsInf(r.US, 1)) {
		ps = append(ps, fmt.Sprintf("status ok with us %v, want a finite positive time", r.US))
	}
	for _, m := range []struct {
		name string
		v    float64
	}{
		{"us", r.US}, {"p20_us", r.P20US}, {"p80_us", r.P80US}, {"baseline_us", r.BaselineUS},
		{"rel_err", r.RelErr}, {"verify_rel_err", r.VerifyErr}, {"wall_s", r.WallS},
	} {
		if m.name == "us" && r.Status == StatusOK {
			continue // checked above
		}
		if !(m.v >= 0) || math.IsInf(m.v, 0) {
			ps = append(ps, fmt.Sprintf("%s %v, want a finite non-negative value", m.name, m.v))
		}
	}
	if c, err := tiling.ParseName(r.Config); keyOK && err == nil && (c.Kernel != k.Kernel || c.Arch != k.Arch || c.DType != k.DType) {
		ps = append(ps, fmt.Sprintf("a %s %s %s config in a %s %s %s entry", c.Kernel, c.Arch, c.DType, k.Kernel, k.Arch, k.DType))
	}
	return ps
}

// LoadDB reads the DB at path; a missing file is an empty DB. A directory
// is bad input (ErrInvalidDB), like a file that is not a DB, so every
// command that takes a DB path treats one alike; other read failures
// are not.
func LoadDB(path string) (*DB, error) {
	b, err := readfile.Read(path, readfile.MaxDB)
	if errors.Is(err, fs.ErrNotExist) {
		return NewDB(), nil
	}
	if errors.Is(err, readfile.ErrNotRegular) || errors.Is(err, readfile.ErrTooLarge) {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: tune: load DB: %w: is a directory, want a results DB file", path, ErrInvalidDB)
		}
		return nil, fmt.Errorf("tune: load DB: %w: %w", ErrInvalidDB, err)
	}
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: tune: load DB: %w: is a directory, want a results DB file", path, ErrInvalidDB)
		}
		return nil, fmt.Errorf("tune: load DB: %w", err)
	}
	db, err := ParseDB(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// Marshal encodes db as indented JSON with a final newline.
func (db *DB) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(db, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("tune: encode DB: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteFile writes db to path atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a reader (or a sweep killed
// mid-write) sees the old file or the new one, never a torn one.
func (db *DB) WriteFile(path string) error {
	b, err := db.Marshal()
	if err != nil {
		return err
	}
	return writeAtomic(path, b)
}

func writeAtomic(path string, b []byte) error {
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

// UpdateDB applies f to the DB at path under an exclusive lock on its
// directory and writes the result atomically, so concurrent tuners
// sharing one DB (shards, devices) never lose each other's records, and
// no lock file is left behind. It returns the DB as written. If f fails,
// or leaves a record LoadDB would refuse, nothing is written: one bad
// record (a runner's answer without a time, say) would otherwise make the
// file unreadable for every later sweep, merge and lookup.
func UpdateDB(path string, f func(*DB) error) (*DB, error) {
	unlock, err := dirlock.Lock(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("tune: lock %s: %w", path, err)
	}
	defer unlock()
	db, err := LoadDB(path)
	if err != nil {
		return nil, err
	}
	if err := f(db); err != nil {
		return nil, err
	}
	if err := db.check(); err != nil {
		return nil, fmt.Errorf("tune: update %s: refusing to write a DB that would not load: %w", path, err)
	}
	if err := db.WriteFile(path); err != nil {
		return nil, err
	}
	return db, nil
}

// ReadDB reads the DB at path under a shared lock on its directory, so it
// never sees a write in progress on a file system without atomic rename.
// Reading creates no file. A missing DB is an empty one.
func ReadDB(path string) (*DB, error) {
	if unlock, err := dirlock.RLock(filepath.Dir(path)); err == nil {
		defer unlock()
	}
	// Without the lock (a missing directory) reading is still safe where
	// rename is atomic.
	return LoadDB(path)
}

// Merge combines DBs: entries with equal keys are joined, and for a config
// recorded in several the passing record wins over a failed one, then the
// later Date, then the earlier DB's. Ceilings come from the first DB that
// has them for the key.
func Merge(dbs ...*DB) *DB {
	out := NewDB()
	for _, db := range dbs {
		for _, e := range db.Entries {
			dst := out.Upsert(e.Key)
			if !dst.Ceilings.Known() {
				dst.Ceilings = e.Ceilings
			}
			for _, r := range e.Results {
				if old, ok := dst.Result(r.Config); ok && !newerResult(r, old) {
					continue
				}
				dst.Set(r)
			}
		}
	}
	return out
}

// newerResult reports whether r should replace old in a merge: a pass over
// a failure, a full measurement over a screening one, then the newer.
func newerResult(r, old Result) bool {
	if (r.Status == StatusOK) != (old.Status == StatusOK) {
		return r.Status == StatusOK
	}
	if r.Status == StatusOK && r.Screened != old.Screened {
		return !r.Screened // a full measurement over a screening one
	}
	return r.Date > old.Date // RFC 3339 UTC strings order by time
}

// Winner is the best tuned config for a problem, found by Lookup.
type Winner struct {
	Config tiling.Config
	Result Result
	Key    Key
	// Baseline is the entry's median baseline time (0 if unknown).
	BaselineUS float64
	// StaleTemplates is set when the winner was tuned with other templates
	// than the ones asked for: the generated code has changed since.
	StaleTemplates bool
}

// Lookup finds the fastest passing config for (kernel, arch, dtype, shape,
// storeOut) over every GPU, driver and compiler in db. Entries tuned with
// templates (a templates.Hash) are preferred; others are used only when no
// such entry has a winner, and are marked StaleTemplates. Only entries
// and configs whose StoreOut is storeOut count: a kernel that writes a
// second output is not interchangeable with one that does not. Records
// whose names no longer parse or validate are skipped. ok is false when
// nothing matches.
func (db *DB) Lookup(k tiling.Kernel, a tiling.Arch, d tiling.DType, s tiling.Shape, storeOut bool, templates string) (w Winner, ok bool) {
	// A grouped kind's shape here has no E or routing (emit's --shape):
	// entries of the uniform routing, a balanced router, come first, and
	// the others are used only when no such entry has a winner.
	passes := []struct{ current, anyRouting bool }{{true, false}, {true, true}, {false, false}, {false, true}}
	for _, p := range passes {
		for _, e := range db.Entries {
			ek := e.Key
			if ek.Kernel != k || ek.Arch != a || ek.DType != d || ek.Shape != s || ek.StoreOut != storeOut || (ek.Templates == templates) != p.current ||
				(!p.anyRouting && ek.Routing != "" && ek.Routing != RoutingUniform) {
				continue
			}
			for _, r := range e.Results {
				if r.Status != StatusOK || r.Screened || (ok && r.Time() >= w.Result.Time()) {
					continue
				}
				c, err := tiling.ParseName(r.Config)
				if err != nil || c.Validate() != nil ||
					c.Kernel != k || c.Arch != a || c.DType != d || c.StoreOut != storeOut {
					continue
				}
				w = Winner{Config: c, Result: r, Key: ek, BaselineUS: e.BaselineUS(), StaleTemplates: !p.current}
				ok = true
			}
		}
		if ok {
			return w, true
		}
	}
	return Winner{}, false
}

// Nearest is the shape nearest s (tiling.LogDistance) among the entries
// of kind k, arch a, dtype d and storeOut that hold a passing result
// Lookup would take (with any templates): where --tuned at s found none,
// the shape it could have been given.
func (db *DB) Nearest(k tiling.Kernel, a tiling.Arch, d tiling.DType, s tiling.Shape, storeOut bool) (tiling.Shape, bool) {
	var best tiling.Shape
	found, bestDist := false, 0.0
	for _, e := range db.Entries {
		ek := e.Key
		if ek.Kernel != k || ek.Arch != a || ek.DType != d || ek.StoreOut != storeOut || !e.hasWinner() {
			continue
		}
		if dist := tiling.LogDistance(s, ek.Shape); !found || dist < bestDist {
			best, bestDist, found = ek.Shape, dist, true
		}
	}
	return best, found
}

// hasWinner reports whether e holds a result Lookup takes: passing, not
// screened, and of e's kind, arch, dtype and StoreOut.
func (e *Entry) hasWinner() bool {
	for _, r := range e.Results {
		if r.Status != StatusOK || r.Screened {
			continue
		}
		c, err := tiling.ParseName(r.Config)
		if err == nil && c.Validate() == nil && c.Kernel == e.Key.Kernel && c.Arch == e.Key.Arch && c.DType == e.Key.DType && c.StoreOut == e.Key.StoreOut {
			return true
		}
	}
	return false
}
