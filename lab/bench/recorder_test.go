package bench

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sampleReport is a bwd_dswiglu report with the unfused path timed.
func sampleReport() *BwdReport {
	row := func(name string, us float64) Row {
		return Row{Name: name, FLOPs: 2e9 * us, Bytes: 1e6 * us, T: Stats{Median: us, P20: us - 1, P80: us + 1, N: 40}, TFLOPs: 700, GBs: 3000, PctFloor: 50}
	}
	return &BwdReport{Shape: tiling.Shape{M: 16384, K: 768, I: 4608}, Config: "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong",
		Ceil: Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}, FloorUS: 120, Speedup: 1.25, RelErr: 1e-3, Sets: 3, Grid: 132,
		Rows:    []Row{row("swigen", 240), row("baseline", 300), row("baseline gemm", 200), row("baseline dswiglu", 90), row("unfused", 280), row("unfused gemm", 190)},
		Unfused: &Unfused{Gemm: "gemm_sm90a_bf16_m128n128k64_s6_c1x1_pingpong_amn_bmn", US: 280, GemmUS: 190, RelErr: 2e-3}}
}

// TestRecorderGolden pins the bytes of one record file and its name, and
// reads it back into the same Record (the JSON round trip).
// go test ./lab/bench -run RecorderGolden -update rewrites the file.
func TestRecorderGolden(t *testing.T) {
	t.Parallel()
	cfg, err := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	r := Recorder{Dir: dir, Now: func() time.Time { return now },
		Header: Header{Probe: "noepi", GPU: "NVIDIA H200", Driver: 13000, Revision: "abc", Command: "swigen bench bwd --json d"}}
	rep := sampleReport()
	pr := NewPlanOutcome(tiling.Plan{Path: tiling.PathFused, Why: "measured"}, rep)
	if err := r.Write(cfg, rep, pr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "20261201T100000_"+cfg.Name()+"_probe_noepi_16384x768x4608.json")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "record.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("record file (-want +got):\n%s", d)
	}
	var back Record
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	h := r.Header
	h.Kernel, h.Arch, h.DType, h.Shape, h.Config, h.Date = "bwd_dswiglu", "sm_90a", "bf16", rep.Shape, cfg.Name(), "2026-12-01T10:00:00Z"
	if d := cmp.Diff(NewRecord(h, rep, pr), back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// TestRecorderBadDir: a directory that cannot be made is an error.
func TestRecorderBadDir(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := tiling.ParseName("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong")
	rep := sampleReport()
	if err := (Recorder{Dir: filepath.Join(f, "sub")}).Write(cfg, rep, PlanOutcome{}); err == nil {
		t.Error("Write under a file: no error")
	}
}

// TestRevision: a stamped revision wins; the VCS one is cut to 12 digits
// and marked dirty; none is "unknown".
func TestRevision(t *testing.T) {
	t.Parallel()
	if got := Revision("stamp"); got != "stamp" {
		t.Errorf("Revision(stamp) = %q", got)
	}
	tests := []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "unknown"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}}, "0123456789ab"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, "abc-dirty"},
	}
	for _, tt := range tests {
		if got := vcsRevision(tt.settings); got != tt.want {
			t.Errorf("vcsRevision(%v) = %q, want %q", tt.settings, got, tt.want)
		}
	}
}
