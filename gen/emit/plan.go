package emit

import (
	"errors"
	"fmt"
	"github.com/swigen/swigen/internal/badinput"
	"io/fs"
	"os"
	"strings"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/gobind"
	"github.com/swigen/swigen/gen/pybind"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// UsageError marks bad input: a flag, flag combination or config that is
// invalid (swigen exits 2). Nothing was compiled or written.
type UsageError = badinput.Error

func usage(err error) error { return &UsageError{Err: err} }

// plan is what emit knows before it looks for a compiler: every config
// resolved, validated and rendered, the flags checked.
type plan struct {
	cfgs     []tiling.Config
	arts     []*gen.Artifact
	notes    []string
	dispatch []manifest.Dispatch
	unfused  []string // configs emitted only for a plan's unfused path
	extra    func(gen.Index, []gen.EmittedKernel) ([]gen.OutputFile, error)
}

// Check does every check of emit's flags and configs that needs no
// compiler (as emit does them; diff's are the same under the name diff):
// it resolves, validates and renders every config. Every error is a
// UsageError.
func Check(o *Options) error {
	_, err := prepare(o, "emit")
	return err
}

// prepare does every check of the flags and configs of the command cmd
// (emit or diff) that needs no compiler: it resolves, validates and
// renders every config, so an invalid one (a render-time rule included)
// is a usage error before anything compiles or is written.
func prepare(o *Options, cmd string) (*plan, error) {
	if err := checkOutDir(o.Out); err != nil {
		return nil, usage(fmt.Errorf("%s: %w", cmd, err))
	}
	p := &plan{}
	if o.GoPackage != "" {
		if err := gobind.ValidatePackage(o.GoPackage); err != nil {
			return nil, usage(fmt.Errorf("%s: --go-package: %w", cmd, err))
		}
		p.extra = gobind.Hook(o.GoPackage)
	}
	if o.PyPackage != "" {
		if err := pybind.ValidatePackage(o.PyPackage); err != nil {
			return nil, usage(fmt.Errorf("%s: --py-package: %w", cmd, err))
		}
		p.extra = pybind.Compose(p.extra, pybind.Hook(o.PyPackage))
	}
	var err error
	if p.cfgs, p.notes, err = o.Configs(); err != nil {
		return nil, usage(fmt.Errorf("%s: %w", cmd, err))
	}
	if err := Validate(p.cfgs); err != nil {
		return nil, usage(fmt.Errorf("%s: nothing written:\n%w", cmd, err))
	}
	ds, gemms, notes, err := dispatchPlans(o, p.cfgs)
	if err != nil {
		return nil, usage(fmt.Errorf("%s: %w", cmd, err))
	}
	p.dispatch, p.cfgs, p.notes = ds, append(p.cfgs, gemms...), append(p.notes, notes...)
	for _, g := range gemms {
		p.unfused = append(p.unfused, g.Name())
	}
	// Rendering applies the generator's own rules (tiling.Implemented and
	// the templates' limits): a config it cannot render is as invalid to
	// the user as one that fails Validate.
	if p.arts, err = gen.RenderAll(p.cfgs); err != nil {
		return nil, usage(fmt.Errorf("%s: nothing written: %w", cmd, err))
	}
	return p, nil
}

// checkOutDir checks -o: not empty, and not an existing non-directory.
// A missing directory is fine (emit creates it).
func checkOutDir(dir string) error {
	if strings.TrimSpace(dir) == "" {
		return errors.New("-o: empty output directory; name one (default out)")
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("-o %s: exists and is not a directory", dir)
	}
	return nil
}

// Validate checks every config at tiling's boundary (tiling.Check) and
// reports the problems of all of them, each naming its config once.
func Validate(cfgs []tiling.Config) error {
	var errs []error
	for _, c := range cfgs {
		if _, err := tiling.Check(c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
