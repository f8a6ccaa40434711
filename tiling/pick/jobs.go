package pick

import (
	"fmt"

	"github.com/swigen/swigen/tiling"
)

// Job is one config and the shapes it is timed at, with what chose the
// config (--tuned's note or the heuristic's reason).
type Job struct {
	Config tiling.Config
	Shapes []tiling.Shape
	Notes  []string
}

// Jobs pairs the selection's configs with shapes on arch: with fixed
// (names, the catalog, the space or a heuristic shape given) every
// config of Resolve with every shape; otherwise each shape with the
// heuristic's config for it, or with tunedPath (a results DB) its winner
// there through tuned. Shapes that share a config share its job.
// tuned's errors are UsageErrors prefixed with cmd.
func (c *Fixed) Jobs(cmd string, arch tiling.Arch, shapes []tiling.Shape, fixed bool, tunedPath string, tuned TunedFunc) ([]Job, error) {
	if fixed {
		cfgs, err := c.Resolve(arch)
		if err != nil {
			return nil, err
		}
		jobs := make([]Job, len(cfgs))
		for i, cfg := range cfgs {
			jobs[i] = Job{Config: cfg, Shapes: shapes}
		}
		return jobs, nil
	}
	var jobs []Job
	idx := map[string]int{}
	for _, sh := range shapes {
		cfg, note, err := c.perShape(cmd, arch, sh, tunedPath, tuned)
		if err != nil {
			return nil, err
		}
		i, ok := idx[cfg.Name()]
		if !ok {
			i = len(jobs)
			idx[cfg.Name()] = i
			jobs = append(jobs, Job{Config: cfg})
		}
		jobs[i].Shapes = append(jobs[i].Shapes, sh)
		if note != "" {
			jobs[i].Notes = append(jobs[i].Notes, note)
		}
	}
	return jobs, nil
}

// perShape is the config of shape sh: the heuristic's there (with its
// reason as the note) or, with tunedPath, tuned's choice and note.
func (c *Fixed) perShape(cmd string, arch tiling.Arch, sh tiling.Shape, tunedPath string, tuned TunedFunc) (tiling.Config, string, error) {
	one := *c
	one.Shape = sh.String()
	cfgs, err := one.Resolve(arch)
	if err != nil {
		return tiling.Config{}, "", err
	}
	cfg := cfgs[0]
	if tunedPath != "" {
		t, note, err := tuned(tunedPath, cfg, sh, c.StoreOut)
		if err != nil {
			return tiling.Config{}, "", usage(fmt.Errorf("%s: %w", cmd, err))
		}
		return t, note, nil
	}
	if _, why, err := tiling.HeuristicWhy(cfg.Kernel, arch, cfg.DType, sh, c.StoreOut); err == nil {
		return cfg, fmt.Sprintf("heuristic: %s %s at %d,%d,%d: %s (%s)", cfg.Kernel, arch, sh.M, sh.K, sh.I, cfg.Name(), why), nil
	}
	return cfg, "", nil
}
