package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// newTuneMergeCmd is `swigen tune merge`; runF, when non-nil, replaces
// the merge once the arguments are checked (tests).
func newTuneMergeCmd(e *env, runF func(inputs []string, out string) error) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DB... -o OUT",
		Short: "Merge results DBs (e.g. of shards run on several machines)",
		Long:  longHelp("tune_merge"),
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
	st, err := tune.MergeFiles(inputs, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "merged %d DBs (%d records) into %s: %d keys, %d records\n", st.Inputs, st.InRecords, out, st.Keys, st.Records)
	return nil
}

// tunedConfig is `swigen emit --tuned` (tune.Tuned): the winner recorded
// in the DB at path for heur's kernel, arch and dtype at shape and
// storeOut, or heur; the note says which.
func tunedConfig(path string, heur tiling.Config, shape tiling.Shape, storeOut bool) (tiling.Config, string, error) {
	th, err := templates.Hash()
	if err != nil {
		return heur, "", err
	}
	return tune.Tuned(path, heur, shape, storeOut, th)
}
