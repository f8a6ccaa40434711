package tiling

import "strings"

// Checked is a Config that Check accepted: legal on its arch (Validate),
// implemented by the generator (Implemented), and so within every rule the
// kernel views and the manifest assume. Code that needs a legal config
// (rendering, the manifest, the views, the protocol model) takes a Checked
// and trusts it instead of re-deriving the rules; the zero Checked holds
// the zero Config, which those consumers reject as an unknown kind or arch.
type Checked struct{ c Config }

// Config returns the checked config (a copy: editing it does not change
// what was checked).
func (k Checked) Config() Config { return k.c }

// Name is the config's procedural name.
func (k Checked) Name() string { return k.c.Name() }

// Check is the boundary where a config's legality is decided, once: it
// returns c as a Checked when c validates and is implemented, and
// otherwise a *ConfigError naming c once, whose Err is the
// *ValidationError of every broken rule or the *NotImplementedError.
func Check(c Config) (Checked, error) {
	if err := legality(c); err != nil {
		return Checked{}, &ConfigError{Name: c.Name(), Err: err}
	}
	return Checked{c: c}, nil
}

// legality is Check's verdict without the config's name, for the callers
// in this package whose messages name the config already: nil, the
// *ValidationError, or the *NotImplementedError.
func legality(c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if ok, why := Implemented(c); !ok {
		return &NotImplementedError{Reason: why}
	}
	return nil
}

// ConfigError is why Check rejected a config: the config's name and the
// rules it breaks (a *ValidationError) or what the generator lacks (a
// *NotImplementedError).
type ConfigError struct {
	Name string
	Err  error
}

// Error names the config once, then the problem; several problems go one
// per indented line.
func (e *ConfigError) Error() string {
	msg := e.Err.Error()
	if strings.Contains(msg, "\n") {
		return "config " + e.Name + ":\n  " + strings.ReplaceAll(msg, "\n", "\n  ")
	}
	return "config " + e.Name + ": " + msg
}

// Unwrap returns the rules' error, so errors.As finds a *ValidationError.
func (e *ConfigError) Unwrap() error { return e.Err }

// NotImplementedError is a legal config that the generator has no code
// for; Reason is Implemented's sentence.
type NotImplementedError struct {
	Reason string
}

// Error says "not implemented" and why.
func (e *NotImplementedError) Error() string { return "not implemented: " + e.Reason }
