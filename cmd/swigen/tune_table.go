package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/runtime/tune"
)

// newTuneTableCmd is `swigen tune table`; runF, when non-nil, replaces
// the build once the arguments are checked (tests).
func newTuneTableCmd(e *env, runF func(inputs []string, out string) error) *cobra.Command {
	var out string
	var plans []string
	cmd := &cobra.Command{
		Use:   "table DB... [-o FILE]",
		Short: "Build the heuristic's measured table from results DBs",
		Long: `Build the measured table the heuristic chooses from (tiling/measured.json,
embedded in swigen): for every DB key with a winner (a full measurement,
never a screened one), one row with the kind, arch, dtype, mode, shape,
the winning config and its time and baseline's. The heuristic takes, for
a shape, the winner at the tuned shape nearest in log space, for the same
kind, arch and mode; where the table has none, its rules. Rows are sorted,
so the same DBs give the same bytes. The DBs must hold one winner per
shape and one GPU kind per arch.

--plan DIR (repeatable) adds the dispatch plan's points: DIR holds swigen
bench --json records of runs that timed the unfused path beside the fused
kernel (bench bwd and gateup do, for kinds with one); each record's fused,
unfused and baseline times go into the row of its shape, and the plan
takes the unfused path where the fused kernel was not 2% faster.

The table swigen ships is built from the suite DBs under bench/results/tune
(swigen tune --suite, one per variant):

  swigen tune table bench/results/tune/suite-*.json --plan bench/results/plan/bwd \
    --plan bench/results/plan/bwd-out --plan bench/results/plan/fwd \
    --plan bench/results/plan/fwd-out -o tiling/measured.json

Without -o the table goes to stdout; with it, FILE is replaced atomically,
and nothing is written when a DB is bad.`,
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
		return tuneErr(err)
	}
	if err := tune.WriteMeasured(t, out, e.stdout); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(e.stderr, "tune table: %d rows from %d DBs into %s\n", len(t.Rows), len(inputs), out)
	return nil
}
