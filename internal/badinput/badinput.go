// Package badinput marks errors that are the caller's input to fix (a
// flag's value, a config, a file or device the user named), which the
// swigen CLI exits 2 on, apart from failures of the machine, compiler or
// driver. Each package that reports bad input names this type for its own
// callers (pick.UsageError, tune.InputError, ...); the CLI recognises all
// of them through Is.
package badinput

import "errors"

// Error is bad input; Err says what is wrong with it.
type Error struct{ Err error }

// Error is the bad input's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the error that names the bad input.
func (e *Error) Unwrap() error { return e.Err }

// Marked is the method by which an error type of a package that cannot
// import this one (another leaf helper of internal/) says it is bad
// input.
type Marked interface{ BadInput() bool }

// Is reports whether err is, or wraps, bad input: an *Error, or an error
// whose BadInput method says so.
func Is(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return true
	}
	var m Marked
	return errors.As(err, &m) && m.BadInput()
}
