package tune

import (
	"fmt"
	"io"
	"os"

	"github.com/swigen/swigen/internal/atomicfile"
	"github.com/swigen/swigen/tiling"
)

// readInputs reads the DBs at paths for the command op; a path that is
// not there is an *InputError (not ReadDB's empty DB).
func readInputs(op string, paths []string) ([]*DB, error) {
	var dbs []*DB
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, &InputError{Err: fmt.Errorf("%s: input %w", op, err)}
		}
		db, err := ReadDB(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		dbs = append(dbs, db)
	}
	return dbs, nil
}

// MergeStats counts what MergeFiles read and wrote.
type MergeStats struct {
	Inputs, InRecords int // DBs read and the records they held
	Keys, Records     int // in the merged DB
}

// MergeFiles merges the DBs at inputs (Merge) into the DB at out, written
// atomically under its lock; out may be one of the inputs.
func MergeFiles(inputs []string, out string) (MergeStats, error) {
	st := MergeStats{Inputs: len(inputs)}
	dbs, err := readInputs("tune merge", inputs)
	if err != nil {
		return st, err
	}
	for _, db := range dbs {
		st.InRecords += records(db)
	}
	merged := Merge(dbs...)
	if _, err := UpdateDB(out, func(db *DB) error { *db = *merged; return nil }); err != nil {
		return st, fmt.Errorf("tune merge: %w", err)
	}
	st.Keys, st.Records = len(merged.Entries), records(merged)
	return st, nil
}

func records(db *DB) int {
	n := 0
	for _, en := range db.Entries {
		n += len(en.Results)
	}
	return n
}

// TableFiles builds the measured table (Table) from the DBs at inputs and
// the plan records in planDirs, for the command line that writes it to
// out; bad input is an *InputError.
func TableFiles(inputs, planDirs []string, out string) (*tiling.MeasuredTable, error) {
	dbs, err := readInputs("tune table", inputs)
	if err != nil {
		return nil, err
	}
	plans, err := ReadPlanRecords(planDirs)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("tune table: --plan: %w", err)}
	}
	t, err := Table(dbs, plans, TableCommand(inputs, planDirs, out))
	if err != nil {
		return nil, &InputError{Err: err}
	}
	return t, nil
}

// Tuned is the winner recorded in the DB at path for the heuristic
// config's kernel, arch and dtype at shape, tuned with storeOut (recorded
// under its own key), preferring results of the current templates (th,
// templates.Hash), or heur itself when the DB has none; the note says
// which. A path that is not there is an *InputError.
func Tuned(path string, heur tiling.Config, shape tiling.Shape, storeOut bool, th string) (tiling.Config, string, error) {
	if _, err := os.Stat(path); err != nil {
		return heur, "", &InputError{Err: fmt.Errorf("--tuned: %w", err)}
	}
	db, err := ReadDB(path)
	if err != nil {
		return heur, "", fmt.Errorf("--tuned: %w", err)
	}
	what := fmt.Sprintf("%s %s %s %s%s", heur.Kernel, heur.Arch, heur.DType, ShapeDims(heur.Kernel, shape), StoreOutFlag(storeOut))
	w, ok := db.Lookup(heur.Kernel, heur.Arch, heur.DType, shape, storeOut, th)
	if !ok {
		note := fmt.Sprintf("--tuned %s has no passing result for %s; using the heuristic config %s", path, what, heur.Name())
		if near, ok := db.Nearest(heur.Kernel, heur.Arch, heur.DType, shape, storeOut); ok {
			note += fmt.Sprintf(" (the nearest tuned shape is --shape %s, %s)", tiling.FormatKindShape(heur.Kernel, near), tiling.ShapeOrder(heur.Kernel))
		} else {
			note += fmt.Sprintf(" (it has no %s %s %s%s entry at any shape)", heur.Kernel, heur.Arch, heur.DType, StoreOutFlag(storeOut))
		}
		return heur, note, nil
	}
	note := fmt.Sprintf("--tuned %s: using the tuned winner for %s: %s (%.1f us", path, what, w.Config.Name(), w.Result.US)
	if w.Result.BaselineUS > 0 {
		note += fmt.Sprintf(", %.2fx the baseline", w.Result.BaselineUS/w.Result.US)
	}
	note += fmt.Sprintf(", on %s%s)", w.Key.GPU, tunedAt(w.Key))
	if w.StaleTemplates {
		note += fmt.Sprintf("; it was tuned with other templates (%.12s, now %.12s): re-run swigen tune to confirm", w.Key.Templates, th)
	}
	return w.Config, note, nil
}

// WriteMeasured writes the table t (Marshal) to out, replaced atomically,
// or to stdout when out is "".
func WriteMeasured(t *tiling.MeasuredTable, out string, stdout io.Writer) error {
	b, err := t.Marshal()
	if err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(b)
		return err
	}
	if err := atomicfile.Write(out, b); err != nil {
		return fmt.Errorf("tune table: %w", err)
	}
	return nil
}

// tunedAt is the grouped part of a winner's key in a --tuned note ("" for
// the other kinds): emit's --shape has no E or routing, so the note says
// which the winner was tuned at.
func tunedAt(k Key) string {
	if k.Experts == 0 {
		return ""
	}
	return fmt.Sprintf(", tuned at E=%d, %s routing", k.Experts, k.Routing)
}
