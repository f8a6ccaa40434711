package toolchain

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var noteCodeRE = regexp.MustCompile(`\((C\d{4})\)`)

// noteKinds replaces each note with its code ("C7519") or "warning", which
// keeps the expectations below short while still pinning every note.
func noteKinds(fs []FunctionReport) []FunctionReport {
	if fs == nil {
		return nil
	}
	out := make([]FunctionReport, len(fs))
	for i, f := range fs {
		out[i] = f
		out[i].Notes = nil
		for _, n := range f.Notes {
			switch m := noteCodeRE.FindStringSubmatch(n); {
			case m != nil:
				out[i].Notes = append(out[i].Notes, m[1])
			case strings.HasPrefix(n, "ptxas warning"):
				out[i].Notes = append(out[i].Notes, "warning")
			default:
				out[i].Notes = append(out[i].Notes, n)
			}
		}
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestParsePtxasVerboseLogs(t *testing.T) {
	t.Parallel()
	sm90 := func(f FunctionReport) FunctionReport { f.Arch = "sm_90a"; return f }
	tests := []struct {
		log  string
		want []FunctionReport
	}{
		{"sm90_simple", []FunctionReport{sm90(FunctionReport{Name: "simple", Entry: true, Registers: 12, Barriers: 1, StaticSmem: 512})}},
		{"sm90_spill", []FunctionReport{sm90(FunctionReport{Name: "spiller", Entry: true, Registers: 64,
			SpillStores: 1976, SpillLoads: 1976, StackFrame: 912})}},
		{"sm90_spill_warn", []FunctionReport{sm90(FunctionReport{Name: "spiller", Entry: true, Registers: 64,
			SpillStores: 1976, SpillLoads: 1976, StackFrame: 912, Notes: []string{"warning"}})}},
		{"sm90_stack", []FunctionReport{
			sm90(FunctionReport{Name: "stacky", Entry: true, Registers: 32, StackFrame: 256}),
			sm90(FunctionReport{Name: "_Z4pickPKfi"}),
		}},
		{"sm90_stack_warn", []FunctionReport{
			sm90(FunctionReport{Name: "stacky", Entry: true, Registers: 32, StackFrame: 256, Notes: []string{"warning"}}),
			sm90(FunctionReport{Name: "_Z4pickPKfi"}),
		}},
		// C7508 names no function and the module has two kernels, so
		// ParsePtxasVerbose pins it on both.
		{"sm90_setmaxnreg", []FunctionReport{
			sm90(FunctionReport{Name: "withentry", Entry: true, Registers: 168, Notes: []string{"C7508"}}),
			sm90(FunctionReport{Name: "noentry", Entry: true, Registers: 10, Notes: []string{"C7508"}}),
		}},
		{"sm90_wgmma_serialized", []FunctionReport{sm90(FunctionReport{Name: "serialized", Entry: true, Registers: 30,
			Notes: append(append(repeat("C7519", 5), repeat("C7517", 5)...), "C7511")})}},
		{"sm100_tcgen05", []FunctionReport{{Name: "tmem_roundtrip", Entry: true, Arch: "sm_100a", Registers: 10, Barriers: 1, StaticSmem: 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "ptxas", tt.log+".log"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParsePtxasVerbose(string(b))
			if err != nil {
				t.Fatalf("ParsePtxasVerbose: %v", err)
			}
			if diff := cmp.Diff(tt.want, noteKinds(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePtxasReportModuleNotes(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/ptxas/sm90_setmaxnreg.log")
	if err != nil {
		t.Fatal(err)
	}
	r, err := parsePtxasReport(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "C7508") {
		t.Errorf("module notes = %q, want the one C7508 line", r.Notes)
	}
	for _, f := range r.Functions {
		if len(f.Notes) != 0 {
			t.Errorf("%s: notes %q, want none (C7508 is unattributed)", f.Name, f.Notes)
		}
	}
	err = r.check("setmaxnreg", checkPolicy{})
	var bce *BuildCheckError
	if !errors.As(err, &bce) || len(bce.Problems) != 1 || bce.Problems[0].Function != "" {
		t.Fatalf("check = %v, want one module-level note", err)
	}
	if !strings.Contains(err.Error(), "(module): note: ptxas info    : (C7508)") {
		t.Errorf("check error %q does not show the module note", err)
	}
}

func TestParsePtxasVerboseSynthetic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		log     string
		want    []FunctionReport
		wantErr string
	}{
		{name: "empty", log: "", want: nil},
		{
			name: "fat binary reports each arch apart, CRLF and cmem tolerated",
			log: "ptxas info    : Compiling entry function 'k' for 'sm_90a'\r\n" +
				"ptxas info    : Function properties for k\r\n" +
				"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\r\n" +
				"ptxas info    : Used 40 registers, used 2 barriers, 1024 bytes smem, 380 bytes cmem[0]\r\n" +
				"ptxas info    : Compiling entry function 'k' for 'sm_100a'\n" +
				"ptxas info    : Function properties for k\n" +
				"    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n" +
				"ptxas info    : Used 48 registers, used 1 barriers\n",
			want: []FunctionReport{
				{Name: "k", Entry: true, Arch: "sm_90a", Registers: 40, Barriers: 2, StaticSmem: 1024},
				{Name: "k", Entry: true, Arch: "sm_100a", Registers: 48, Barriers: 1, StackFrame: 8, SpillStores: 4, SpillLoads: 4},
			},
		},
		{
			name: "note naming an unknown function stays module-level and is pinned on the single entry",
			log: "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized in the function 'other'\n" +
				"ptxas info    : Compiling entry function 'k' for 'sm_90a'\n" +
				"ptxas info    : Function properties for k\n" +
				"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
				"ptxas info    : Used 8 registers, used 0 barriers\n",
			want: []FunctionReport{{Name: "k", Entry: true, Arch: "sm_90a", Registers: 8, Notes: []string{"C7515"}}},
		},
		{
			// The overlap schedule's first build: a trap in a barrier wait
			// that may run while wgmmas are in flight.
			name: "C7518 and any other performance-loss note are hazards",
			log: "ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program dependence on compiler-inserted WG.DP in divergent path in the function 'k'\n" +
				"ptxas info    : (C7599) Potential Performance Loss: something new in the function 'k'\n" +
				"ptxas info    : (C7000) an unrelated remark in the function 'k'\n" +
				"ptxas info    : Compiling entry function 'k' for 'sm_90a'\n" +
				"ptxas info    : Function properties for k\n" +
				"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
				"ptxas info    : Used 246 registers, used 16 barriers\n",
			want: []FunctionReport{{Name: "k", Entry: true, Arch: "sm_90a", Registers: 246, Barriers: 16, Notes: []string{"C7518", "C7599"}}},
		},
		{
			name:    "frame line without a function",
			log:     "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
			wantErr: "line 1: stack frame line outside a function",
		},
		{
			name:    "register line without a function",
			log:     "ptxas info    : Compiling entry function 'k' for 'sm_90a'\nptxas info    : Used 8 registers\n",
			wantErr: "line 2: register line outside a function",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePtxasVerbose(tt.log)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, noteKinds(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildReportCheck(t *testing.T) {
	t.Parallel()
	r := BuildReport{Arch: "sm_90a", Functions: []FunctionReport{
		{Name: "ok", Entry: true, Registers: 90},
		{Name: "spills", Entry: true, Registers: 255, SpillStores: 8, SpillLoads: 12, StackFrame: 16},
		{Name: "noted", Entry: true, Registers: 168, Notes: []string{"ptxas info    : (C7511) serialized"}},
	}}
	tests := []struct {
		name string
		p    checkPolicy
		want []BuildProblem
	}{
		{"strict", checkPolicy{}, []BuildProblem{
			{"spills", "spill", "8 bytes spill stores, 12 bytes spill loads (255 registers)"},
			{"spills", "stack", "16 bytes stack frame"},
			{"noted", "note", "ptxas info    : (C7511) serialized"},
		}},
		{"allow spills", checkPolicy{AllowSpills: true}, []BuildProblem{
			{"spills", "stack", "16 bytes stack frame"},
			{"noted", "note", "ptxas info    : (C7511) serialized"},
		}},
		{"allow all", checkPolicy{AllowSpills: true, AllowStack: true, AllowNotes: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := r.check("k", tt.p)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("check = %v, want nil", err)
				}
				return
			}
			var bce *BuildCheckError
			if !errors.As(err, &bce) {
				t.Fatalf("check = %v, want *BuildCheckError", err)
			}
			if diff := cmp.Diff(tt.want, bce.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, p := range tt.want {
				if !strings.Contains(err.Error(), p.Function+": "+p.What+": "+p.Detail) {
					t.Errorf("error text lacks %q:\n%v", p.Detail, err)
				}
			}
		})
	}
}

func FuzzParsePtxasVerbose(f *testing.F) {
	logs, _ := filepath.Glob("testdata/ptxas/*.log")
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, log string) {
		fs, err := ParsePtxasVerbose(log)
		if err == nil {
			for _, fn := range fs {
				if fn.Name == "" {
					t.Errorf("function with empty name from %q", log)
				}
			}
		}
	})
}
