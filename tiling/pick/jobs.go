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

// Jobs pairs a one-kernel selection's configs with shapes on arch: with
// fixed (names, the catalog, the space or a heuristic shape given) every
// config of ConfigsOn with every shape; otherwise each shape with the
// heuristic's config for it, or with Tuned (a results DB) its winner
// there through TunedConfig. Shapes that share a config share its job.
// TunedConfig's errors are UsageErrors prefixed with cmd.
func (o *Request) Jobs(cmd string, arch tiling.Arch, shapes []tiling.Shape, fixed bool) ([]Job, error) {
	if fixed {
		cfgs, err := o.ConfigsOn(arch)
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
		cfg, note, err := o.perShape(cmd, arch, sh)
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
// reason as the note) or, with Tuned, TunedConfig's choice and note.
func (o *Request) perShape(cmd string, arch tiling.Arch, sh tiling.Shape) (tiling.Config, string, error) {
	one := *o
	one.Shape = sh.String()
	cfgs, err := one.ConfigsOn(arch)
	if err != nil {
		return tiling.Config{}, "", err
	}
	cfg := cfgs[0]
	if o.Tuned != "" {
		t, note, err := o.TunedConfig(o.Tuned, cfg, sh, o.StoreOut())
		if err != nil {
			return tiling.Config{}, "", usage(fmt.Errorf("%s: %w", cmd, err))
		}
		return t, note, nil
	}
	if _, why, err := tiling.HeuristicWhy(cfg.Kernel, arch, cfg.DType, sh, o.StoreOut()); err == nil {
		return cfg, fmt.Sprintf("heuristic: %s %s at %s: %s (%s)", cfg.Kernel, arch, tiling.FormatKindShape(cfg.Kernel, sh), cfg.Name(), why), nil
	}
	return cfg, "", nil
}
