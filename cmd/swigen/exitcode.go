package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/internal/badinput"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/tiling"
)

// Exit codes of swigen. Scripts and CI rely on them; do not renumber.
const (
	exitOK      = 0 // success
	exitFailure = 1 // runtime failure: compiler, driver, I/O, internal error
	exitUsage   = 2 // bad flags or arguments, or an invalid kernel config
	exitStale   = 3 // `swigen diff`: generated output on disk is stale
)

// exitError carries an exit code other than exitFailure up to run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// flagError is a usage error for which the command's usage is printed.
type flagError struct {
	cmd *cobra.Command
	err error
}

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// usageError returns err as an exit-2 error that prints no usage: the
// message itself says what is wrong (e.g. an invalid config).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// exitCode maps an error returned by the command tree to an exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var fe *flagError
	var ve *tiling.ValidationError
	if errors.As(err, &fe) || errors.As(err, &ve) || isCobraUsage(err) {
		return exitUsage
	}
	// The libraries mark the bad input they find (a selection's words,
	// emit's flags, an install directory, a tune's shard or device, a path
	// the kind lacks) as badinput.Error, whichever command meets it.
	if badinput.Is(err) {
		return exitUsage
	}
	// A results DB named by a flag or argument that is not one is bad
	// input, whichever command reads it (emit --tuned, tune, tune merge).
	if errors.Is(err, tune.ErrInvalidDB) {
		return exitUsage
	}
	return exitFailure
}

// isCobraUsage recognises the usage errors cobra creates itself without a
// hook to wrap them: unknown commands and flag-group rules (flags marked
// mutually exclusive or required together).
func isCobraUsage(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command ") || strings.HasPrefix(msg, "if any flags in the group [")
}

// usageArgs wraps a cobra argument validator so that its errors print usage
// and exit 2, like flag errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &flagError{cmd: cmd, err: err}
		}
		return nil
	}
}
