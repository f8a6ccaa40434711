package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/internal/tty"
)

// env is what every command gets from run: its output streams. Commands
// write results to stdout and notes and progress to stderr.
type env struct {
	stdout, stderr io.Writer
	// stderrTTY says stderr is a terminal: progress lines go there only
	// then (tty.IsTerminal).
	stderrTTY bool
}

// run executes swigen with args and returns the process exit code; main is
// only os.Exit(run(...)), so tests drive the whole CLI through run.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(&env{stdout: stdout, stderr: stderr, stderrTTY: tty.IsTerminal(stderr)})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "swigen: %v\n", err)
	var fe *flagError
	switch {
	case errors.As(err, &fe):
		// Usage only for flag and argument errors (gh's rule): for anything
		// else it buries the message.
		fmt.Fprintf(stderr, "\n%s", fe.cmd.UsageString())
	case isCobraUsage(err):
		fmt.Fprintln(stderr, "Run 'swigen --help' for usage.")
	}
	return exitCode(err)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "swigen",
		Short: "Generate, compile and tune fused SwiGLU-MLP GPU kernels",
		Long:  longHelp("root"),
		Example: `  swigen emit
  swigen list --arch sm_90a
  swigen doctor`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetVersionTemplate("swigen {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &flagError{cmd: c, err: err}
	})
	root.AddGroup(
		&cobra.Group{ID: groupGen, Title: "Generating kernels:"},
		&cobra.Group{ID: groupGPU, Title: "Running on the GPU:"},
		&cobra.Group{ID: groupInfo, Title: "Information:"},
	)
	root.SetHelpCommand(newHelpCmd(root))
	root.SetHelpCommandGroupID(groupInfo)
	root.SetCompletionCommandGroupID(groupInfo)
	// An argument the root or the completion group does not know (a typo,
	// "", a shell swigen has no script for) is a usage error, not help
	// with exit 0.
	root.Args = rootArgs
	root.SuggestionsMinimumDistance = 2
	root.Run = func(cmd *cobra.Command, args []string) { cmd.Help() }

	// One file and one newXCmd(e, runF) per command. runF, when non-nil,
	// replaces the command's action so tests can check the parsed options
	// (gh's pattern). verify, bench and tune (groupGPU) and diff (groupGen,
	// exit code exitStale) go here too.
	root.AddCommand(
		newEmitCmd(e, nil),
		newListCmd(e, nil),
		newDoctorCmd(e, nil),
		newVersionCmd(e),
		newVerifyCmd(e, nil),
		newBenchCmd(e, nil),
		newDiffCmd(e, nil),
		newTuneCmd(e, nil),
		newTuneWorkerCmd(e, nil),
		newToolchainCmd(e),
		newWheelCmd(e, nil),
	)
	registerCompletions(root)
	// Cobra adds its completion group only to a root with subcommands.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = cobra.NoArgs
			c.Run = func(cmd *cobra.Command, args []string) { cmd.Help() }
		}
	}
	return root
}

// rootArgs rejects any positional argument of the root command: cobra
// finds real subcommands before it, so what is left is unknown (including
// an empty argument, which cobra would otherwise answer with help).
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

// newHelpCmd is `swigen help [command]`, which, unlike cobra's, fails
// (exit 2) on a topic that is no command.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command in the application.\nSimply type swigen help [path to command] for full details.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return &flagError{cmd: root, err: fmt.Errorf("unknown help topic %q", strings.Join(args, " "))}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// Command groups of the root help.
const (
	groupGen  = "gen"
	groupGPU  = "gpu"
	groupInfo = "info"
)
