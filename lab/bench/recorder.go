package bench

import (
	"runtime/debug"
	"time"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// Recorder writes Run's results into Dir, one record file per config
// and shape (docs/DESIGN.md#bench-result-records).
type Recorder struct {
	Dir string
	// Header holds what every record shares: GPU, Driver, Revision,
	// Command and Probe; Write fills in the rest.
	Header Header
	// Now is the clock of the records' dates and names; nil is time.Now.
	Now func() time.Time
}

// Write writes cfg's record of rep with the plan's outcome pr, under a
// time-first name (RecordName).
func (r Recorder) Write(cfg tiling.Config, rep *BwdReport, pr PlanOutcome) error {
	clock := r.Now
	if clock == nil {
		clock = time.Now
	}
	now := clock().UTC()
	h := r.Header
	h.Kernel, h.Arch, h.DType, h.Shape, h.Config = string(cfg.Kernel), string(cfg.Arch), string(cfg.DType), rep.Shape, cfg.Name()
	h.Date = now.Format(time.RFC3339)
	b, err := MarshalRecord(NewRecord(h, rep, pr))
	if err != nil {
		return err
	}
	_, err = WriteRecord(r.Dir, RecordName(now, manifest.ProbedName(cfg, h.Probe), rep.Shape), b)
	return err
}

// Revision is the source revision records name: stamped when the binary
// was given one at link time (-ldflags -X), else the VCS revision of its
// build (12 hex digits, "-dirty" with local changes), else "unknown".
func Revision(stamped string) string {
	if stamped != "" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return vcsRevision(bi.Settings)
	}
	return "unknown"
}

// vcsRevision is Revision's part from the build settings.
func vcsRevision(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
