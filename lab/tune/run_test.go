package tune

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swigen/swigen/tiling"
)

// recReporter records a Run's reports as lines.
type recReporter struct{ got []string }

func (r *recReporter) Events(key Key, space, without int) ShapeEvents {
	return ShapeEvents{Sharded: func(kept, cands int) {
		r.got = append(r.got, fmt.Sprintf("shape %s: %d kept, %d mine", ShapeDims(key.Kernel, key.Shape), kept, cands))
	}}
}

func (r *recReporter) ShapeDone(res *SweepResult, _ time.Duration) error {
	best, _ := res.Entry.Best()
	r.got = append(r.got, fmt.Sprintf("done %d,%d,%d: %s", res.Entry.Key.Shape.M, res.Entry.Key.Shape.K, res.Entry.Key.Shape.I, best.Config))
	return nil
}

func (r *recReporter) SuiteDone(done []*SweepResult, _ time.Duration) {
	r.got = append(r.got, fmt.Sprintf("suite: %d", len(done)))
}

// runOptions tunes the pingpong c1x1 candidates of sm_90a bf16 at shapes
// with r, into a DB in a temporary directory.
func runOptions(t *testing.T, r Runner, shapes ...tiling.Shape) RunOptions {
	return RunOptions{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM90a, DType: tiling.BF16, Shapes: shapes,
		GPU: GPU{Name: "NVIDIA H200", Driver: 13000}, Compiler: "nvcc 13.0.88", Templates: "abc123",
		Filter: []string{"pingpong", "c1x1"}, Max: 3, Shards: 1, ShardFlag: "0/1",
		DBPath: filepath.Join(t.TempDir(), "tune.json"), Devices: []int{0}, Exhaustive: true,
		NewRunner: func() (Runner, error) { return r, nil }}
}

// byTile times a candidate by its tile area: the smallest tile wins.
func byTile(fail bool) Runner {
	return RunnerFunc(func(_ context.Context, j Job) (Output, error) {
		if fail {
			return Output{Result: Result{Status: StatusWrong, Error: "mismatch"}}, nil
		}
		return Output{Result: Result{Status: StatusOK, US: 100 + float64(j.Config.TileM*j.Config.TileN)/1000, BaselineUS: 300}}, nil
	})
}

// TestRun: each shape is tuned and reported in turn, a suite is closed
// with its summary, and a shape without a passing candidate is an error
// after its report.
func TestRun(t *testing.T) {
	t.Parallel()
	s1, s2 := tiling.Shape{M: 16384, K: 768, I: 4608}, tiling.Shape{M: 8192, K: 4096, I: 14336}
	win := "bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong" // the smallest tile of the first 3
	tests := []struct {
		name    string
		shapes  []tiling.Shape
		fail    bool
		want    []string
		wantErr string
	}{
		{"one shape", []tiling.Shape{s1}, false, []string{"shape M=16384 K=768 I=4608: 3 kept, 3 mine", "done 16384,768,4608: " + win}, ""},
		{"suite", []tiling.Shape{s1, s2}, false, []string{"shape M=16384 K=768 I=4608: 3 kept, 3 mine", "done 16384,768,4608: " + win,
			"shape M=8192 K=4096 I=14336: 3 kept, 3 mine", "done 8192,4096,14336: " + win, "suite: 2"}, ""},
		{"none passed", []tiling.Shape{s1}, true, []string{"shape M=16384 K=768 I=4608: 3 kept, 3 mine", "done 16384,768,4608: "}, "no candidate passed (see the status column)"},
		{"suite, none passed", []tiling.Shape{s1, s2}, true, []string{"shape M=16384 K=768 I=4608: 3 kept, 3 mine", "done 16384,768,4608: ",
			"shape M=8192 K=4096 I=14336: 3 kept, 3 mine", "done 8192,4096,14336: ", "suite: 2"}, "no candidate passed at M=16384 K=768 I=4608"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := &recReporter{}
			o := runOptions(t, byTile(tt.fail), tt.shapes...)
			o.Reporter = rep
			done, err := Run(context.Background(), o)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want %q", err, tt.wantErr)
			}
			if len(done) != len(tt.shapes) {
				t.Errorf("%d shapes done, want %d", len(done), len(tt.shapes))
			}
			if diff := cmp.Diff(tt.want, rep.got); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunRefuses: a selection that leaves nothing is a *SelectionError
// before the runner is made; a runner that cannot be made is the error.
func TestRunRefuses(t *testing.T) {
	t.Parallel()
	s := tiling.Shape{M: 16384, K: 768, I: 4608}
	noRunner := errors.New("no runner")
	tests := []struct {
		name      string
		edit      func(o *RunOptions)
		selection bool
		want      string
	}{
		{"filter", func(o *RunOptions) { o.Filter = []string{"no-such"} }, true, "no candidate left of"},
		{"max", func(o *RunOptions) { o.Max = -1 }, true, "max -1"},
		{"shard", func(o *RunOptions) { o.Max, o.Shard, o.Shards = 1, 1, 2 }, true, "--shard 0/1"},
		{"runner", func(o *RunOptions) { o.NewRunner = func() (Runner, error) { return nil, noRunner } }, false, "no runner"},
		{"empty space", func(o *RunOptions) { o.Arch = "sm_80" }, false, "is empty"},
	}
	for _, tt := range tests {
		o := runOptions(t, byTile(false), s)
		tt.edit(&o)
		_, err := Run(context.Background(), o)
		var se *SelectionError
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.As(err, &se) != tt.selection {
			t.Errorf("%s: err %v, want %q (selection error %v)", tt.name, err, tt.want, tt.selection)
		}
	}
}

func TestCheckLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		o    RunOptions
		want string
	}{
		{RunOptions{Devices: []int{0, 1}, SlowFactor: 3, ScreenKeep: 4}, ""},
		{RunOptions{Devices: []int{0}}, ""},
		{RunOptions{}, "--devices: no GPU given"},
		{RunOptions{Devices: []int{-1}}, "--devices -1"},
		{RunOptions{Devices: []int{1, 1}}, "lists 1 twice"},
		{RunOptions{Devices: []int{0}, Max: -2}, "--max -2"},
		{RunOptions{Devices: []int{0}, SlowFactor: 1}, "--slow-factor 1"},
		{RunOptions{Devices: []int{0}, ScreenKeep: -1}, "--screen-keep -1"},
	}
	for _, tt := range tests {
		err := tt.o.CheckLimits()
		var ie *InputError
		if tt.want == "" && err != nil || tt.want != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: err %v, want %q", tt.o, err, tt.want)
		}
	}
}

func TestCheckKernelAndSelection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		k        tiling.Kernel
		storeOut bool
		ok       bool
	}{
		{tiling.KernelBwdDSwiGLU, true, true}, {tiling.KernelFwdGateUp, true, true}, {tiling.KernelGEMM, false, true}, {tiling.KernelGEMM, true, false},
	} {
		if err := CheckKernel(tt.k, tt.storeOut); (err == nil) != tt.ok {
			t.Errorf("CheckKernel(%s, %v): %v", tt.k, tt.storeOut, err)
		}
	}
	o := RunOptions{Kernel: tiling.KernelBwdDSwiGLU, DType: tiling.BF16, Filter: []string{"sm90a"}, ShardFlag: "0/1"}
	if err := o.CheckSelection(tiling.Arches()); err != nil {
		t.Errorf("sm90a names in any arch: %v", err)
	}
	var se *SelectionError
	if err := o.CheckSelection([]tiling.Arch{tiling.ArchSM100a}); !errors.As(err, &se) {
		t.Errorf("sm90a names in the sm_100a space: %v, want a *SelectionError", err)
	}
}
