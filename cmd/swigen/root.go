package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// env is what every command gets from run: its output streams. Commands
// write results to stdout and notes and progress to stderr.
type env struct {
	stdout, stderr io.Writer
}

// run executes swigen with args and returns the process exit code; main is
// only os.Exit(run(...)), so tests drive the whole CLI through run.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(&env{stdout: stdout, stderr: stderr})
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

const rootLong = `swigen generates fused SwiGLU-MLP GEMM kernels as self-contained CUDA C++
(inline PTX) from Go templates, compiles them with nvcc/ptxas to cubins, and
loads them from Go through the CUDA driver API.

Targets: sm_90a (H100/H200: TMA + wgmma) runs here when such a GPU is
present; sm_100a (B200: TMA + tcgen05 + TMEM) is generated and
compile-verified only until a Blackwell GPU is available.

Exit codes:
  0  success
  1  runtime failure (compiler, driver, I/O)
  2  usage error or invalid kernel config
  3  generated output is stale (swigen diff)

Environment:
  SWIGEN_CACHE_DIR   build cache directory (default: the user cache dir + /swigen)
  SWIGEN_CUDA_VENV   Python venv holding the pinned CUDA compiler wheels
                     (nvidia/cu13/bin/nvcc); searched for nvcc
  CUDA_HOME          CUDA installation; $CUDA_HOME/bin/nvcc is searched for nvcc`

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "swigen",
		Short: "Generate, compile and tune fused SwiGLU-MLP GPU kernels",
		Long:  rootLong,
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
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &flagError{cmd: c, err: err}
	})
	root.AddGroup(
		&cobra.Group{ID: groupGen, Title: "Generating kernels:"},
		&cobra.Group{ID: groupGPU, Title: "Running on the GPU:"},
		&cobra.Group{ID: groupInfo, Title: "Information:"},
	)
	root.SetHelpCommandGroupID(groupInfo)
	root.SetCompletionCommandGroupID(groupInfo)

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
	)
	return root
}

// Command groups of the root help.
const (
	groupGen  = "gen"
	groupGPU  = "gpu"
	groupInfo = "info"
)
