package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/runtime/tune"
	"github.com/swigen/swigen/tiling"
)

// newTuneMergeCmd is `swigen tune merge`; runF, when non-nil, replaces
// the merge once the arguments are checked (tests).
func newTuneMergeCmd(e *env, runF func(inputs []string, out string) error) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DB... -o OUT",
		Short: "Merge results DBs (e.g. of shards run on several machines)",
		Long: `Merge results DBs into one. Entries with the same key are joined; for a
config recorded in several DBs, a passing record wins over a failed one,
then the newer one. OUT is written atomically under its lock and may be one
of the inputs.`,
		Example: `  swigen tune merge shard0.json shard1.json -o tune.json
  swigen tune merge tune.json other-machine.json -o tune.json`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError(errors.New("tune merge: -o OUT is required"))
			}
			if runF != nil {
				return runF(args, out)
			}
			return runTuneMerge(e, args, out)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "merged DB to write")
	return cmd
}

func runTuneMerge(e *env, inputs []string, out string) error {
	var dbs []*tune.DB
	n := 0
	for _, p := range inputs {
		if _, err := os.Stat(p); err != nil {
			// An input that is not there is a bad argument, not an empty DB
			// (ReadDB's reading of a missing file).
			return usageError(fmt.Errorf("tune merge: input %w", err))
		}
		db, err := tune.ReadDB(p)
		if err != nil {
			return fmt.Errorf("tune merge: %w", err)
		}
		for _, en := range db.Entries {
			n += len(en.Results)
		}
		dbs = append(dbs, db)
	}
	merged := tune.Merge(dbs...)
	if _, err := tune.UpdateDB(out, func(db *tune.DB) error { *db = *merged; return nil }); err != nil {
		return fmt.Errorf("tune merge: %w", err)
	}
	m := 0
	for _, en := range merged.Entries {
		m += len(en.Results)
	}
	fmt.Fprintf(e.stdout, "merged %d DBs (%d records) into %s: %d keys, %d records\n", len(inputs), n, out, len(merged.Entries), m)
	return nil
}

// tunedConfig is `swigen emit --tuned`: the winner recorded in the DB at
// path for the heuristic config's kernel, arch and dtype at shape, tuned
// with storeOut as emit's --store-out asks (swigen tune --store-out
// records that mode under its own key), or the heuristic config itself
// when the DB has none; the note says which.
func tunedConfig(path string, heur tiling.Config, shape tiling.Shape, storeOut bool) (tiling.Config, string, error) {
	if _, err := os.Stat(path); err != nil {
		// A DB that is not there is a bad argument (not ReadDB's empty
		// DB), as for tune merge's inputs.
		return heur, "", usageError(fmt.Errorf("--tuned: %w", err))
	}
	db, err := tune.ReadDB(path)
	if err != nil {
		return heur, "", fmt.Errorf("--tuned: %w", err)
	}
	th, err := tune.TemplatesHash()
	if err != nil {
		return heur, "", err
	}
	what := fmt.Sprintf("%s %s %s M=%d K=%d I=%d%s", heur.Kernel, heur.Arch, heur.DType, shape.M, shape.K, shape.I, storeOutFlag(storeOut))
	w, ok := db.Lookup(heur.Kernel, heur.Arch, heur.DType, shape, storeOut, th)
	if !ok {
		return heur, fmt.Sprintf("--tuned %s has no passing result for %s; using the heuristic config %s", path, what, heur.Name()), nil
	}
	note := fmt.Sprintf("--tuned %s: using the tuned winner for %s: %s (%.1f us", path, what, w.Config.Name(), w.Result.US)
	if w.Result.BaselineUS > 0 {
		note += fmt.Sprintf(", %.2fx the baseline", w.Result.BaselineUS/w.Result.US)
	}
	note += fmt.Sprintf(", on %s)", w.Key.GPU)
	if w.StaleTemplates {
		note += fmt.Sprintf("; it was tuned with other templates (%.12s, now %.12s): re-run swigen tune to confirm", w.Key.Templates, th)
	}
	return w.Config, note, nil
}
