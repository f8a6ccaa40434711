package emit

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// Result is what Run built and wrote.
type Result struct {
	*gen.EmitResult
}

// Write prints r as swigen emit does: to w one line per kernel (its
// build report or "source only"), the files' counts and what the previous
// emit left; to notes the files kept because they were edited.
func (r *Result) Write(w, notes io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	sm100 := false
	for _, k := range r.Kernels {
		a := k.Artifact
		m := a.Manifest
		if k.Build == nil {
			fmt.Fprintf(tw, "%s\t%s\tthreads %d\tsmem %d\tsource only\n", a.Config.Arch, a.Name, m.BlockThreads, m.DynamicSmemBytes)
			continue
		}
		sm100 = sm100 || a.Config.Arch == tiling.ArchSM100a
		fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Config.Arch, a.Name, buildLine(k, m))
	}
	tw.Flush()
	counts := map[gen.FileStatus]int{}
	for _, f := range r.Files {
		counts[f.Status]++
	}
	removed := ""
	if len(r.Removed) > 0 {
		removed = fmt.Sprintf(", %d removed", len(r.Removed))
	}
	fmt.Fprintf(w, "%s: %d files written, %d unchanged%s (index %s)\n",
		r.Dir, counts[gen.FileWritten], counts[gen.FileUnchanged], removed, filepath.Join(r.Dir, gen.IndexFile))
	for _, rm := range r.Removed {
		fmt.Fprintf(w, "removed %s: the previous emit wrote it, this one does not\n", filepath.Join(r.Dir, rm))
	}
	for _, k := range r.Kept {
		fmt.Fprintf(notes, "note: kept %s: the previous emit wrote it and this one does not, but it was edited since; delete it unless it is yours\n", filepath.Join(r.Dir, k))
	}
	if sm100 {
		fmt.Fprintf(w, "note: %s\n", SM100Note)
	}
}

// buildLine summarises a kernel's ptxas report: registers, spills, stack,
// shared memory (dynamic from the manifest plus ptxas's static) and the
// compile time or cache hit.
func buildLine(k gen.EmittedKernel, m manifest.Manifest) string {
	r := k.Build.Report
	f := r.Function(m.Entry)
	if f == nil {
		for i := range r.Functions {
			if r.Functions[i].Entry {
				f = &r.Functions[i]
				break
			}
		}
	}
	var b strings.Builder
	if f == nil {
		b.WriteString("no ptxas report\t\t\t")
	} else {
		fmt.Fprintf(&b, "regs %d\tspills %d/%d B\tstack %d B\t", f.Registers, f.SpillStores, f.SpillLoads, f.StackFrame)
	}
	static := 0
	if f != nil {
		static = f.StaticSmem
	}
	fmt.Fprintf(&b, "smem %d B\t", m.DynamicSmemBytes+static)
	if k.Build.CacheHit {
		b.WriteString("cache hit")
	} else {
		b.WriteString(k.CompileTime.Round(10 * time.Millisecond).String())
	}
	if f != nil && len(f.Notes) > 0 {
		fmt.Fprintf(&b, "\tnotes: %s", strings.Join(f.Notes, "; "))
	}
	return b.String()
}
