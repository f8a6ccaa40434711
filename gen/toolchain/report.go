package toolchain

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ptxasHazardCodes are the ptxas diagnostic codes that mean a kernel will not
// run as written: C7508 (setmaxnreg ignored), C7511/C7515 (wgmma serialized),
// C7518 (wgmma serialized because a divergent path -- e.g. a trap in a
// barrier wait -- may run while wgmmas are in flight), C7517/C7519
// (warpgroup.wait/arrive injected by the compiler, which also serializes the
// wgmma pipeline). Lines carrying them, or any other "Potential Performance
// Loss" note, become Notes.
var ptxasHazardCodes = []string{"C7508", "C7511", "C7515", "C7517", "C7518", "C7519"}

// FunctionReport is what `ptxas -v` says about one function.
type FunctionReport struct {
	Name string `json:"name"`
	// Entry is true for kernels (ptxas "Compiling entry function"); false for
	// non-inlined device functions, which still own stack frames and spills.
	Entry       bool     `json:"entry"`
	Arch        string   `json:"arch,omitempty"`
	Registers   int      `json:"registers"`
	SpillStores int      `json:"spill_stores"`
	SpillLoads  int      `json:"spill_loads"`
	StackFrame  int      `json:"stack_frame"`
	StaticSmem  int      `json:"static_smem"`
	Barriers    int      `json:"barriers"`
	Notes       []string `json:"notes,omitempty"`
}

// BuildReport is the parsed `ptxas -v` output of one compile.
type BuildReport struct {
	Arch      string           `json:"arch"`
	Functions []FunctionReport `json:"functions"`
	// Notes are hazard notes and warnings that name no function. ptxas
	// prints C7508 that way, before any function, so it cannot be pinned on a
	// kernel when a module has several.
	Notes []string `json:"notes,omitempty"`
	// Log is the raw ptxas output.
	Log string `json:"log"`
	// NVCCLog is what nvcc printed while producing the PTX (warnings).
	NVCCLog string `json:"nvcc_log,omitempty"`
}

// Function returns the report for the named function, or nil.
func (r *BuildReport) Function(name string) *FunctionReport {
	for i := range r.Functions {
		if r.Functions[i].Name == name {
			return &r.Functions[i]
		}
	}
	return nil
}

var (
	ptxasEntryRE = regexp.MustCompile(`^ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)'`)
	ptxasPropsRE = regexp.MustCompile(`^ptxas info\s*: Function properties for (\S+)`)
	ptxasFrameRE = regexp.MustCompile(`^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	ptxasUsedRE  = regexp.MustCompile(`^ptxas info\s*: Used (\d+) registers(.*)$`)
	ptxasItemRE  = regexp.MustCompile(`(?:used )?(\d+) (barriers|bytes smem)`)
	ptxasFuncRE  = regexp.MustCompile(`function '([^']+)'`)
	ptxasWarnRE  = regexp.MustCompile(`^ptxas\s+warning\s*:`)
)

// ParsePtxasVerbose parses `ptxas -v` output (also what nvcc prints for
// `-Xptxas -v`) into one report per function, in the order ptxas reports
// them. Hazard notes (ptxasHazardCodes) and ptxas warnings go to the function
// they name; a note that names none goes to the only entry function, or to
// every entry function when there are several, since ptxas does not say which.
func ParsePtxasVerbose(log string) ([]FunctionReport, error) {
	r, err := parsePtxasReport(log)
	if err != nil {
		return nil, err
	}
	if len(r.Notes) > 0 {
		for i := range r.Functions {
			if r.Functions[i].Entry {
				r.Functions[i].Notes = append(r.Functions[i].Notes, r.Notes...)
			}
		}
	}
	return r.Functions, nil
}

// compileTimeRE matches ptxas -v's timing lines, which differ on every run.
var compileTimeRE = regexp.MustCompile(`(?m)^ptxas info\s*: Compile time = .*\n?`)

// stripCompileTimes drops ptxas's timing lines from its log, so the
// report written next to a cubin is as reproducible as the cubin.
func stripCompileTimes(log string) string {
	return compileTimeRE.ReplaceAllString(log, "")
}

// parsePtxasReport is ParsePtxasVerbose keeping unattributed notes apart.
func parsePtxasReport(log string) (BuildReport, error) {
	r := BuildReport{Log: stripCompileTimes(log)}
	// A fat-binary compile reports each function once per arch, so
	// functions are keyed by arch and name.
	type key struct{ arch, name string }
	index := map[key]int{}
	arch := ""
	get := func(name string) *FunctionReport {
		k := key{arch, name}
		i, ok := index[k]
		if !ok {
			i = len(r.Functions)
			index[k] = i
			r.Functions = append(r.Functions, FunctionReport{Name: name, Arch: arch})
		}
		return &r.Functions[i]
	}
	// Notes may precede the function they name (ptxas prints them before its
	// "Compiling entry function" line), so attribute them after the scan.
	type note struct{ fn, text string }
	var notes []note
	// cur is the function whose "Function properties" block is open; the
	// "Used N registers" line belongs to it.
	var cur *FunctionReport
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		if m := ptxasEntryRE.FindStringSubmatch(s); m != nil {
			arch = m[2]
			get(m[1]).Entry = true
			if r.Arch == "" {
				r.Arch = arch
			}
			cur = nil
			continue
		}
		if m := ptxasPropsRE.FindStringSubmatch(s); m != nil {
			cur = get(m[1])
			continue
		}
		if m := ptxasFrameRE.FindStringSubmatch(s); m != nil {
			if cur == nil {
				return r, fmt.Errorf("parse ptxas log: line %d: stack frame line outside a function: %q", line, s)
			}
			cur.StackFrame, cur.SpillStores, cur.SpillLoads = atoi(m[1]), atoi(m[2]), atoi(m[3])
			continue
		}
		if m := ptxasUsedRE.FindStringSubmatch(s); m != nil {
			if cur == nil {
				return r, fmt.Errorf("parse ptxas log: line %d: register line outside a function: %q", line, s)
			}
			cur.Registers = atoi(m[1])
			for _, it := range ptxasItemRE.FindAllStringSubmatch(m[2], -1) {
				switch it[2] {
				case "barriers":
					cur.Barriers = atoi(it[1])
				case "bytes smem":
					cur.StaticSmem = atoi(it[1])
				}
			}
			continue
		}
		if isPtxasNote(s) {
			fn := ""
			if m := ptxasFuncRE.FindStringSubmatch(s); m != nil {
				fn = m[1]
			}
			notes = append(notes, note{fn, strings.TrimSpace(s)})
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("parse ptxas log: %w", err)
	}
	for _, n := range notes {
		found := false
		for i := range r.Functions {
			if n.fn != "" && r.Functions[i].Name == n.fn {
				r.Functions[i].Notes = append(r.Functions[i].Notes, n.text)
				found = true
			}
		}
		if !found {
			r.Notes = append(r.Notes, n.text)
		}
	}
	if len(r.Notes) > 0 && entryCount(r.Functions) == 1 {
		for i := range r.Functions {
			if r.Functions[i].Entry {
				r.Functions[i].Notes = append(r.Functions[i].Notes, r.Notes...)
			}
		}
		r.Notes = nil
	}
	return r, nil
}

func isPtxasNote(s string) bool {
	if ptxasWarnRE.MatchString(s) {
		return true
	}
	for _, c := range ptxasHazardCodes {
		if strings.Contains(s, "("+c+")") {
			return true
		}
	}
	return strings.Contains(s, "Potential Performance Loss")
}

func entryCount(fs []FunctionReport) int {
	n := 0
	for _, f := range fs {
		if f.Entry {
			n++
		}
	}
	return n
}

// atoi is only called on \d+ matches; ptxas numbers fit an int.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// checkPolicy says which findings a build check tolerates.
type checkPolicy struct {
	AllowSpills, AllowStack, AllowNotes bool
}

// BuildCheckError reports kernels that compiled but use local memory or got
// a ptxas hazard note. Compile returns it together with a usable result.
type BuildCheckError struct {
	Name     string // build name given to Compile
	Arch     string
	Problems []BuildProblem
}

// BuildProblem is one finding of the build check.
type BuildProblem struct {
	Function string // "" for a module-level note
	What     string // "spill", "stack", "note"
	Detail   string
}

func (e *BuildCheckError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "build check %s (%s): %d problem(s)", e.Name, e.Arch, len(e.Problems))
	for _, p := range e.Problems {
		fn := p.Function
		if fn == "" {
			fn = "(module)"
		}
		fmt.Fprintf(&b, "\n  %s: %s: %s", fn, p.What, p.Detail)
	}
	return b.String()
}

// check applies the policy to the report: spill stores/loads, a stack frame,
// and hazard notes or warnings are errors unless allowed. It returns nil or a
// *BuildCheckError naming each offending function and its numbers.
func (r *BuildReport) check(name string, p checkPolicy) error {
	var probs []BuildProblem
	for _, f := range r.Functions {
		if !p.AllowSpills && (f.SpillStores > 0 || f.SpillLoads > 0) {
			probs = append(probs, BuildProblem{f.Name, "spill",
				fmt.Sprintf("%d bytes spill stores, %d bytes spill loads (%d registers)", f.SpillStores, f.SpillLoads, f.Registers)})
		}
		if !p.AllowStack && f.StackFrame > 0 {
			probs = append(probs, BuildProblem{f.Name, "stack", fmt.Sprintf("%d bytes stack frame", f.StackFrame)})
		}
		if !p.AllowNotes {
			for _, n := range f.Notes {
				probs = append(probs, BuildProblem{f.Name, "note", n})
			}
		}
	}
	if !p.AllowNotes {
		for _, n := range r.Notes {
			probs = append(probs, BuildProblem{"", "note", n})
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return &BuildCheckError{Name: name, Arch: r.Arch, Problems: probs}
}
