package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/lab/tune"
)

// newTuneTableCmd is `swigen tune table`; runF, when non-nil, replaces
// the build once the arguments are checked (tests).
func newTuneTableCmd(e *env, runF func(inputs []string, out string) error) *cobra.Command {
	var out string
	var plans []string
	cmd := &cobra.Command{
		Use:     "table DB... [-o FILE]",
		Short:   "Build the heuristic's measured table from results DBs",
		Long:    longHelp("tune_table"),
		Example: `  swigen tune table suite-bwd.json suite-fwd.json -o measured.json`,
		Args:    usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(args, out)
			}
			return runTuneTable(e, args, plans, out)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "table file to write (default: stdout)")
	cmd.Flags().StringArrayVar(&plans, "plan", nil, "directory of bench --json records with the unfused path timed (repeatable): the dispatch plan's points")
	return cmd
}

func runTuneTable(e *env, inputs, planDirs []string, out string) error {
	t, err := tune.TableFiles(inputs, planDirs, out)
	if err != nil {
		return err
	}
	if err := tune.WriteMeasured(t, out, e.stdout); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(e.stderr, "tune table: %d rows from %d DBs into %s\n", len(t.Rows), len(inputs), out)
	return nil
}
