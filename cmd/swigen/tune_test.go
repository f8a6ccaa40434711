package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

func parseTune(t *testing.T, args ...string) (*tuneOptions, error) {
	t.Helper()
	var got *tuneOptions
	cmd := newTuneCmd(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, func(_ context.Context, o *tuneOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		return nil, err
	}
	return got, nil
}

func TestTuneFlags(t *testing.T) {
	t.Parallel()
	o, err := parseTune(t)
	if err != nil {
		t.Fatal(err)
	}
	if o.Kernel != "bwd_dswiglu" || o.Arch != "auto" || o.DType != "bf16" || o.Shape != seedShape || o.Shard != "0/1" ||
		o.DB != "swigen-tune.json" || o.SlowFactor != tune.DefaultSlowFactor || !cmp.Equal(o.Devices, []int{0}) || o.Jobs < 1 || o.IncludeHangTest || o.StoreOut {
		t.Errorf("defaults: %+v", o)
	}
	o, err = parseTune(t, "--devices", "0,1", "--filter", "pingpong", "--filter", "s5", "--max", "4", "--shard", "1/2",
		"--include-hang-test", "--report", "r.svg", "--timeout", "30s", "--dtype", "fp16", "--arch", "sm_90a", "--retry",
		"--kernel", "fwd_gateup", "--store-out")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{[]int{0, 1}, []string{"pingpong", "s5"}, 4, "1/2", true, "r.svg", 30 * time.Second, "fp16", "sm_90a", true, "fwd_gateup", true}
	got := []any{o.Devices, o.Filters, o.Max, o.Shard, o.IncludeHangTest, o.Report, o.Timeout, o.DType, o.Arch, o.Retry, o.Kernel, o.StoreOut}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	// The hang test flag is hidden from help; the worker command too.
	_, out, _ := runCLI(t, "tune", "--help")
	if strings.Contains(out, "include-hang-test") || !strings.Contains(out, "--shard") || !strings.Contains(out, "--store-out") ||
		!strings.Contains(out, "fwd_gateup") {
		t.Errorf("tune help:\n%s", out)
	}
	_, out, _ = runCLI(t, "--help")
	if strings.Contains(out, "tune-worker") || !strings.Contains(out, "tune ") {
		t.Errorf("root help:\n%s", out)
	}
}

// TestWorkerArgs checks that the worker's command line parses back
// through the worker command's own flags, and that a job's request line
// decodes to the same request.
func TestWorkerArgs(t *testing.T) {
	t.Parallel()
	o, _ := parseTune(t, "--reps", "25", "--warmup", "150ms", "--sync-timeout", "7s")
	args := tune.WorkerArgs(3, "/opt/nvcc")
	if args[0] != "tune-worker" {
		t.Fatalf("args %q", args)
	}
	var got *workerOptions
	cmd := newTuneWorkerCmd(&env{stdout: io.Discard, stderr: io.Discard}, func(_ context.Context, w *workerOptions) error { got = w; return nil })
	cmd.SetArgs(args[1:])
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&workerOptions{Device: 3, NVCC: "/opt/nvcc"}, got); diff != "" {
		t.Errorf("worker flags (-want +got):\n%s", diff)
	}
	cfg := tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)[3]
	j := tune.Job{Config: cfg, Probe: "hang", Shape: tiling.Shape{M: 100, K: 64, I: 72}, Device: 3, BestUS: 251.25, SlowFactor: 3,
		Ceilings: tune.Ceilings{GemmTFLOPs: 780.5, CopyGBs: 4255}}
	for _, tt := range []struct {
		job  tune.Job
		want tune.WorkerRequest
	}{
		{j, tune.WorkerRequest{Job: j, Reps: 25, Warmup: 150 * time.Millisecond, SyncTimeout: 7 * time.Second, NVCC: "/opt/nvcc"}},
	} {
		line, err := o.workerTiming("/opt/nvcc").Request(tt.job).Encode()
		if err != nil {
			t.Fatal(err)
		}
		req, err := tune.DecodeRequest(line)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, req); diff != "" {
			t.Errorf("worker request (-want +got):\n%s", diff)
		}
	}
	screen := j
	screen.Reps, screen.Warmup = tune.ScreenReps, tune.ScreenWarmup
	if req := o.workerTiming("").Request(screen); req.Reps != tune.ScreenReps || req.Warmup != tune.ScreenWarmup {
		t.Errorf("screening job's request: reps %d warmup %v", req.Reps, req.Warmup)
	}
}

// TestServeTuneWorker: a worker answers one line per request on its
// results pipe; a request it cannot decode, or one for another device, is
// that job's fault, and a worker whose GPU did not open answers every job
// with the reason and exits.
func TestServeTuneWorker(t *testing.T) {
	t.Parallel()
	good, err := (&tuneOptions{Reps: 20, Warmup: time.Millisecond, SyncTimeout: time.Second}).workerTiming("").Request(
		tune.Job{Config: tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)[0], Shape: tiling.Shape{M: 64, K: 64, I: 64}, Device: 1}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	noGPU := func(*workerOptions) (*tune.WorkerEnv, error) { return nil, errors.New("cuInit: CUDA_ERROR_NO_DEVICE") }
	for _, tt := range []struct {
		name string
		dev  int
		in   string
		want []string // each answer's status and a piece of its error
	}{
		{"bad request", 1, "{\n", []string{"fault: worker request"}},
		{"other device", 2, good + "\n", []string{"fault: job for device 1 sent to the worker of device 2"}},
		{"no GPU", 1, good + "\n" + good + "\n", []string{"fault: CUDA_ERROR_NO_DEVICE"}},
	} {
		var res bytes.Buffer
		exited := false
		err := serveTuneWorkerExit(t, func() error {
			return serveTuneWorker(context.Background(), &env{stdout: io.Discard, stderr: io.Discard}, &workerOptions{Device: tt.dev}, noGPU,
				strings.NewReader(tt.in), &res)
		}, &exited)
		if err != nil || !exited {
			t.Errorf("%s: err %v, exited %v", tt.name, err, exited)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(res.String()), "\n") {
			var o tune.Output
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				t.Fatalf("%s: answer %q: %v", tt.name, line, err)
			}
			got = append(got, string(o.Status)+": "+o.Error)
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: answers %q, want %d", tt.name, got, len(tt.want))
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], strings.SplitN(tt.want[i], ": ", 2)[0]) || !strings.Contains(got[i], strings.SplitN(tt.want[i], ": ", 2)[1]) {
				t.Errorf("%s: answer %q, want %q", tt.name, got[i], tt.want[i])
			}
		}
	}
}

// workerExitMu serialises the tests that replace workerExit.
var workerExitMu sync.Mutex

// serveTuneWorkerExit runs f with workerExit recording the call.
func serveTuneWorkerExit(t *testing.T, f func() error, exited *bool) error {
	t.Helper()
	workerExitMu.Lock()
	defer workerExitMu.Unlock()
	old := workerExit
	workerExit = func(int) { *exited = true }
	defer func() { workerExit = old }()
	return f()
}

// fakeTuneDeps stand in for the GPU, the compiler and the child processes:
// every candidate passes with a time from its tile size, except one that
// does not compile and the hang test, which times out.
func fakeTuneDeps(t *testing.T, badCompile string, runs *[]string) tuneDeps {
	var mu sync.Mutex
	return tuneDeps{
		probe: func([]int) (tuneGPU, error) {
			return tuneGPU{Name: "NVIDIA H200", Driver: 13000, Arch: tiling.ArchSM90a, CC: "sm_90"}, nil
		},
		toolchain: func(string) (*toolchain.Toolchain, error) {
			return &toolchain.Toolchain{NVCC: "/fake/nvcc", Version: "13.0.88"}, nil
		},
		prepare: func(*toolchain.Toolchain) func(context.Context, tiling.Config) error {
			return func(_ context.Context, c tiling.Config) error {
				if c.Name() == badCompile {
					return errors.New("gen: compile: ptxas exited with status 255: too many resources")
				}
				return nil
			}
		},
		runner: func(o *tuneOptions, tc *toolchain.Toolchain, log io.Writer) (tune.Runner, error) {
			return tune.RunnerFunc(func(ctx context.Context, j tune.Job) (tune.Output, error) {
				mu.Lock()
				*runs = append(*runs, j.Config.Name())
				mu.Unlock()
				if j.Probe == "hang" {
					return tune.Output{Result: tune.Result{Status: tune.StatusTimeout, Error: "no result within 2m0s; worker process group killed"}}, nil
				}
				us := 200 + float64(j.Config.TileM*j.Config.TileN)/1000 + float64(j.Config.Stages)
				return tune.Output{Result: tune.Result{Status: tune.StatusOK, US: us, BaselineUS: 347},
					Ceilings: tune.Ceilings{GemmTFLOPs: 780, CopyGBs: 4255}}, nil
			}), nil
		},
		now: time.Now,
	}
}

func TestTuneRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, svg := filepath.Join(dir, "tune.json"), filepath.Join(dir, "tune.svg")
	space := tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)
	var pp []tiling.Config
	for _, c := range space {
		if strings.Contains(c.Name(), "pingpong") && strings.Contains(c.Name(), "c1x1") {
			pp = append(pp, c)
		}
	}
	bad := pp[1].Name()
	o, err := parseTune(t, "--db", db, "--report", svg, "--filter", "pingpong", "--filter", "c1x1", "--include-hang-test", "--exhaustive")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	var stdout, stderr bytes.Buffer
	if err := runTune(context.Background(), &env{stdout: &stdout, stderr: &stderr}, o, fakeTuneDeps(t, bad, &runs)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	n := len(pp) + 1
	if len(runs) != n-1 {
		t.Errorf("%d workers ran, want %d (all but the compile failure)", len(runs), n-1)
	}
	errOut, out := stderr.String(), stdout.String()
	for _, want := range []string{
		"tune: bwd_dswiglu sm_90a bf16 at M=16384 K=768 I=4608 on NVIDIA H200",
		"0 already in " + db,
		"+ the hang test",
		"[1/", ", ETA ",
		"compile: gen: compile: ptxas exited",
		"_probe_hang  timeout: no result within",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	winner := "bwd_dswiglu_sm90a_bf16_m64n64k64_s5_c1x1_pingpong" // smallest tile, fewest stages
	for _, want := range []string{
		"ceilings: cuBLAS 8192^3 780 TFLOP/s, device copy 4255 GB/s; roofline floor",
		"config", "% of floor", "vs baseline",
		"winner: " + winner,
		"heuristic: bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k",
		"timeout",
		"1 compile, 1 timeout",
		"DB: " + db,
		"swigen emit --tuned " + db,
		"report: " + svg,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || xml.Unmarshal(b, new(struct {
		XMLName xml.Name `xml:"svg"`
	})) != nil {
		t.Errorf("report: %v", err)
	}
	d, err := tune.LoadDB(db)
	if err != nil || len(d.Entries) != 1 || len(d.Entries[0].Results) != n {
		t.Fatalf("DB: %v, %+v", err, d)
	}
	if k := d.Entries[0].Key; k.GPU != "NVIDIA H200" || k.Driver != 13000 || k.Compiler != "nvcc 13.0.88" || len(k.Templates) != 64 {
		t.Errorf("key %+v", k)
	}

	// A second run resumes: nothing to do, same winner.
	runs = nil
	stdout.Reset()
	stderr.Reset()
	if err := runTune(context.Background(), &env{stdout: &stdout, stderr: &stderr}, o, fakeTuneDeps(t, bad, &runs)); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 || !strings.Contains(stderr.String(), "0 to run") || !strings.Contains(stdout.String(), "winner: "+winner) {
		t.Errorf("resume ran %d:\n%s\n%s", len(runs), stderr.String(), stdout.String())
	}
}

// TestTuneRunGemm: a gemm sweep takes --shape as M,N,K (as swigen bench
// gemm does), keys the DB by {M, K, I=N}, labels its baseline as plain
// cuBLAS and prints an emit hint that names the kernel kind and gives the
// shape back in the order emit reads it (M,N,K, as tune was given it).
func TestTuneRunGemm(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "tune.json")
	o, err := parseTune(t, "--db", db, "--kernel", "gemm", "--shape", "4096,1024,2048", "--filter", "m128n256k64_s4_c1x1")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	var stdout, stderr bytes.Buffer
	if err := runTune(context.Background(), &env{stdout: &stdout, stderr: &stderr}, o, fakeTuneDeps(t, "", &runs)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(runs) == 0 {
		t.Fatal("no candidate ran")
	}
	for _, want := range []string{"gemm sm_90a bf16 at M=4096 N=1024 K=2048"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	for _, want := range []string{"M=4096 N=1024 K=2048", "baseline (cuBLAS GEMM on the same layouts", "--kernel gemm", "--shape 4096,1024,2048"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	d, err := tune.LoadDB(db)
	if err != nil || len(d.Entries) != 1 {
		t.Fatalf("DB: %v, %+v", err, d)
	}
	if got, want := d.Entries[0].Key.Shape, (tiling.Shape{M: 4096, K: 2048, I: 1024}); got != want {
		t.Errorf("DB key shape %+v, want %+v", got, want)
	}
}

func TestTuneUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "2/2"}, "0 <= i < n"},
		{[]string{"--devices", "0,0"}, "lists 0 twice"},
		{[]string{"--arch", "sm_100a"}, "runs sm_90a kernels"},
		{[]string{"--kernel", "fwd_down"}, "--kernel fwd_down: only bwd_dswiglu, fwd_gateup, gemm, moe_fwd_gateup, moe_bwd_dswiglu and moe_gemm can be measured"},
		{[]string{"--kernel", "gemm", "--shape", "64,64,64", "--store-out"}, "--store-out with --kernel gemm: only the kinds with a second output (bwd_dswiglu, fwd_gateup, moe_fwd_gateup and moe_bwd_dswiglu)"},
		{[]string{"--kernel", "fwd_gateup", "--shape", "1,2,3"}, "multiple of 8"},
		{[]string{"--shape", "1,2,3"}, "multiple of 8"},
		{[]string{"--kernel", "gemm", "--shape", "8,8"}, `want three sizes "M,N,K"`},
		{[]string{"--filter", "nothing-matches"}, "no candidate left"},
		{[]string{"--slow-factor", "0.5"}, "must be above 1"},
		{[]string{"--kernel", "moe_fwd_gateup", "--shape", "65536,2048,768"}, "want four sizes M,K,I,E"},
		{[]string{"--kernel", "moe_bwd_dswiglu", "--shape", "65536,2048,768,0"}, `E "0" must be an integer from 1 to 4096`},
		{[]string{"--kernel", "moe_gemm", "--shape", "65536,2048,768,128", "--routing", "skewed"}, `--routing "skewed": want one of uniform, zipf`},
		{[]string{"--kernel", "gemm", "--shape", "64,64,64", "--routing", "zipf"}, "--routing zipf with --kernel gemm: only the grouped kinds"},
		{[]string{"--kernel", "moe_gemm", "--suite"}, "the model-shape suite has no grouped shapes"},
		{[]string{"--kernel", "moe_gemm", "--shape", "64,64,64,2", "--store-out"}, "--store-out with --kernel moe_gemm"},
	} {
		o, err := parseTune(t, append([]string{"--db", filepath.Join(t.TempDir(), "db.json")}, tt.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		err = runTune(context.Background(), &env{stdout: io.Discard, stderr: io.Discard}, o, fakeTuneDeps(t, "", &runs))
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != exitUsage {
			t.Errorf("%v: err %v (exit %d), want exit 2 with %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}

func TestTuneMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := tune.Key{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM90a, DType: tiling.BF16, Shape: tiling.Shape{M: 64, K: 64, I: 64}}
	paths := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	for i, p := range paths {
		db := tune.NewDB()
		db.Upsert(k).Set(tune.Result{Config: "cfg" + string(rune('a'+i)), Status: tune.StatusOK, US: 1})
		db.Upsert(k).Set(tune.Result{Config: "shared", Status: tune.StatusOK, US: float64(i + 1)})
		if err := db.WriteFile(p); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := runCLI(t, "tune", "merge", paths[0], paths[1], "-o", out)
	if code != exitOK || !strings.Contains(stdout, "merged 2 DBs (4 records) into "+out+": 1 keys, 3 records") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	db, err := tune.LoadDB(out)
	if err != nil || len(db.Entries[0].Results) != 3 {
		t.Fatalf("%v %+v", err, db)
	}
	if code, _, stderr := runCLI(t, "tune", "merge", filepath.Join(dir, "missing.json"), "-o", out); code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing input: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "tune", "merge", paths[0]); code != exitUsage || !strings.Contains(stderr, "-o OUT") {
		t.Errorf("no -o: exit %d: %s", code, stderr)
	}
}

// writeTunedDB writes a DB whose sm_90a bf16 winner at shape is the first
// config of the space (not the heuristic's), with current templates.
func writeTunedDB(t *testing.T, shape tiling.Shape) (string, tiling.Config) {
	t.Helper()
	th, err := templates.Hash()
	if err != nil {
		t.Fatal(err)
	}
	win := tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16)[0]
	heur, _ := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16, shape)
	if win.Name() == heur.Name() {
		t.Fatal("test needs a winner other than the heuristic")
	}
	db := tune.NewDB()
	e := db.Upsert(tune.Key{Kernel: tiling.KernelBwdDSwiGLU, Arch: tiling.ArchSM90a, DType: tiling.BF16, Shape: shape,
		GPU: "NVIDIA H200", Driver: 13000, Compiler: "nvcc 13.0.88", Templates: th})
	e.Set(tune.Result{Config: win.Name(), Status: tune.StatusOK, US: 200, BaselineUS: 340})
	e.Set(tune.Result{Config: heur.Name(), Status: tune.StatusOK, US: 260, BaselineUS: 340})
	p := filepath.Join(t.TempDir(), "tune.json")
	if err := db.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p, win
}

func TestEmitTuned(t *testing.T) {
	t.Parallel()
	shape := tiling.Shape{M: 16384, K: 768, I: 4608}
	path, win := writeTunedDB(t, shape)
	heur100, _ := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM100a, tiling.BF16, shape)

	o, err := parseEmit(t, "--tuned", path)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, notes, err := o.configs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{heur100.Name(), win.Name()}, []string{cfgs[0].Name(), cfgs[1].Name()}); diff != "" {
		t.Errorf("configs (-want +got):\n%s", diff)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "no passing result for bwd_dswiglu sm_100a bf16") ||
		!strings.Contains(notes[0], "using the heuristic config "+heur100.Name()) ||
		!strings.Contains(notes[1], "using the tuned winner for bwd_dswiglu sm_90a bf16 M=16384 K=768 I=4608: "+win.Name()+" (200.0 us, 1.70x the baseline, on NVIDIA H200)") {
		t.Errorf("notes:\n%s", strings.Join(notes, "\n"))
	}

	// Another shape has no entry: the heuristic, with a note.
	o, _ = parseEmit(t, "--tuned", path, "--arch", "sm_90a", "--shape", "4096,768,4608")
	cfgs, notes, err = o.configs()
	heur, _ := tiling.Heuristic(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16, tiling.Shape{M: 4096, K: 768, I: 4608})
	if err != nil || cfgs[0].Name() != heur.Name() || !strings.Contains(strings.Join(notes, ""), "no passing result") {
		t.Errorf("fallback: %v %v %q", err, cfgs, notes)
	}
	// Field flags still override the tuned choice.
	o, _ = parseEmit(t, "--tuned", path, "--arch", "sm_90a", "--stages", "3")
	if cfgs, _, err = o.configs(); err != nil || cfgs[0].Stages != 3 || cfgs[0].TileN != win.TileN {
		t.Errorf("override: %v %v", err, cfgs)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--tuned", filepath.Join(t.TempDir(), "missing.json")}, "--tuned: stat"},
		{[]string{"--tuned", path, "--catalog"}, "cannot be combined with --catalog or --name"},
		{[]string{"--tuned", path, "--name", win.Name()}, "cannot be combined"},
	} {
		o, err := parseEmit(t, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := o.configs(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want %q", tt.args, err, tt.want)
		}
	}

	// End to end: the notes reach stderr and the winner is written.
	outDir := t.TempDir()
	code, stdout, stderr := runCLI(t, "emit", "--tuned", path, "--arch", "sm_90a", "--no-compile", "-o", outDir)
	if code != exitOK || !strings.Contains(stderr, "note: --tuned "+path+": using the tuned winner") || !strings.Contains(stdout, win.Name()) {
		t.Errorf("emit --tuned: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(outDir, win.Name()+".cu")); err != nil {
		t.Errorf("winner source not written: %v", err)
	}
}

// fakeUS is the time fakeTuneDeps gives a candidate.
func fakeUS(c tiling.Config) float64 {
	return 200 + float64(c.TileM*c.TileN)/1000 + float64(c.Stages)
}

// fakeWinner is the candidate of runs that fakeTuneDeps makes fastest.
func fakeWinner(t *testing.T, runs []string) string {
	t.Helper()
	best, bestUS := "", 0.0
	for _, n := range runs {
		c, err := tiling.ParseName(n)
		if err != nil {
			t.Fatal(err)
		}
		if us := fakeUS(c); best == "" || us < bestUS || us == bestUS && n < best {
			best, bestUS = n, us
		}
	}
	return best
}

// TestTuneRunFwdGateUp: fwd_gateup sweeps at M,K,I; --store-out tunes the
// training kernel (every candidate _out) under its own DB key, so a later
// inference sweep on the same DB neither skips nor competes with it, and
// emit --tuned picks the winner of the mode its own --store-out asks for.
func TestTuneRunFwdGateUp(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "tune.json")
	shape := tiling.Shape{M: 16384, K: 768, I: 4608}
	winners := map[bool]string{}
	for _, tt := range []struct {
		storeOut bool
		stderr   []string
		stdout   []string
	}{
		{true,
			[]string{"tune: fwd_gateup sm_90a bf16 at M=16384 K=768 I=4608 on NVIDIA H200", "; training: de and out stored (--store-out)", "shard 0/1, --store-out"},
			[]string{"; training: de and out stored (--store-out)", "baseline (cuBLAS GEMM + SwiGLU elementwise, timed in each candidate's run)",
				"heuristic: fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out  ", "--kernel fwd_gateup --arch sm_90a --dtype bf16 --shape 16384,768,4608 --store-out)"}},
		{false,
			[]string{"tune: fwd_gateup sm_90a bf16 at M=16384 K=768 I=4608 on NVIDIA H200", "; inference: only out stored (--store-out for training)", "0 already in"},
			[]string{"; inference: only out stored", "baseline (cuBLAS GEMM + SwiGLU elementwise",
				// The measured heuristic's cooperative tile is filtered out.
				"heuristic: fwd_gateup_sm90a_bf16_m128n256k64_s4_c1x1_cooperative (not among the candidates)", "--kernel fwd_gateup --arch sm_90a --dtype bf16 --shape 16384,768,4608)"}},
	} {
		args := []string{"--db", db, "--kernel", "fwd_gateup", "--filter", "pingpong", "--filter", "c1x1"}
		if tt.storeOut {
			args = append(args, "--store-out")
		}
		o, err := parseTune(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		var stdout, stderr bytes.Buffer
		if err := runTune(context.Background(), &env{stdout: &stdout, stderr: &stderr}, o, fakeTuneDeps(t, "", &runs)); err != nil {
			t.Fatalf("store-out %v: %v\n%s", tt.storeOut, err, stderr.String())
		}
		if len(runs) == 0 {
			t.Fatalf("store-out %v: no candidate ran", tt.storeOut)
		}
		for _, n := range runs {
			if strings.HasSuffix(n, "_out") != tt.storeOut || !strings.HasPrefix(n, "fwd_gateup_sm90a_bf16_") {
				t.Errorf("store-out %v: candidate %s", tt.storeOut, n)
			}
		}
		winners[tt.storeOut] = fakeWinner(t, runs)
		for _, want := range tt.stderr {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("store-out %v: stderr lacks %q:\n%s", tt.storeOut, want, stderr.String())
			}
		}
		for _, want := range append(tt.stdout, "winner: "+winners[tt.storeOut]+"  ") {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("store-out %v: stdout lacks %q:\n%s", tt.storeOut, want, stdout.String())
			}
		}
	}
	d, err := tune.LoadDB(db)
	if err != nil || len(d.Entries) != 2 {
		t.Fatalf("DB: %v, %d entries, want one per mode", err, len(d.Entries))
	}
	for _, e := range d.Entries {
		if e.Key.Kernel != tiling.KernelFwdGateUp || e.Key.Shape != shape {
			t.Errorf("key %+v", e.Key)
		}
		for _, r := range e.Results {
			if strings.HasSuffix(r.Config, "_out") != e.Key.StoreOut {
				t.Errorf("entry store_out=%v holds %s", e.Key.StoreOut, r.Config)
			}
		}
	}

	for _, storeOut := range []bool{true, false} {
		args := []string{"--tuned", db, "--kernel", "fwd_gateup", "--arch", "sm_90a"}
		if storeOut {
			args = append(args, "--store-out")
		}
		o, err := parseEmit(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		cfgs, notes, err := o.configs()
		if err != nil {
			t.Fatal(err)
		}
		if len(cfgs) != 1 || cfgs[0].Name() != winners[storeOut] || !strings.Contains(strings.Join(notes, "\n"), "using the tuned winner for fwd_gateup sm_90a bf16 M=16384 K=768 I=4608") {
			t.Errorf("emit --tuned, store-out %v: %v %q; want %s", storeOut, cfgs, notes, winners[storeOut])
		}
	}
}

// TestWithStoreOut: --store-out sets StoreOut on every candidate; one
// whose operand ring no longer fits becomes the two deepest that do.

// TestTunePrune: with the GPU's SM count known, tune leaves out what the
// prune model says cannot win (at the seed shape the 64-wide tiles) and
// says so; --exhaustive runs every candidate.
func TestTunePrune(t *testing.T) {
	t.Parallel()
	for _, exhaustive := range []bool{false, true} {
		args := []string{"--db", filepath.Join(t.TempDir(), "tune.json"), "--filter", "pingpong", "--filter", "c1x1"}
		if exhaustive {
			args = append(args, "--exhaustive")
		}
		o, err := parseTune(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		d := fakeTuneDeps(t, "", &runs)
		probe := d.probe
		d.probe = func(devs []int) (tuneGPU, error) {
			g, err := probe(devs)
			g.SMs = 132
			return g, err
		}
		var stdout, stderr bytes.Buffer
		if err := runTune(context.Background(), &env{stdout: &stdout, stderr: &stderr}, o, d); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		ran64 := slices.ContainsFunc(runs, func(n string) bool { return strings.Contains(n, "_m64n64k") })
		noted := strings.Contains(stderr.String(), "left out by the prune model")
		if ran64 != exhaustive || noted == exhaustive {
			t.Errorf("exhaustive=%v: ran a 64x64 tile %v, noted the pruning %v:\n%s", exhaustive, ran64, noted, stderr.String())
		}
	}
}

// TestTuneTimingFlags: values the workers would reject are usage errors
// before the GPU is probed, and a worker given a bad request still writes
// its result.
func TestTuneTimingFlags(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]string{{"--reps", "0"}, {"--warmup", "-1s"}, {"--sync-timeout", "0s"}, {"--timeout", "0s"}} {
		o, err := parseTune(t, append([]string{"--db", filepath.Join(t.TempDir(), "t.json")}, bad...)...)
		if err != nil {
			t.Fatal(err)
		}
		d := fakeTuneDeps(t, "", new([]string))
		d.probe = func([]int) (tuneGPU, error) {
			t.Errorf("%v: the GPU was probed", bad)
			return tuneGPU{}, errors.New("no")
		}
		err = runTune(context.Background(), &env{stdout: io.Discard, stderr: io.Discard}, o, d)
		if exitCode(err) != exitUsage {
			t.Errorf("%v: %v (exit %d), want a usage error", bad, err, exitCode(err))
		}
	}
}

// TestTuneScreen: by default tune screens every candidate briefly, then
// measures the best --screen-keep and the heuristic's config fully; only
// full measurements can win, and a rerun resumes without running anything.
func TestTuneScreen(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "tune.json")
	o, err := parseTune(t, "--db", db, "--filter", "pingpong", "--filter", "c1x1", "--screen-keep", "3")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	d := fakeTuneDeps(t, "", &runs)
	run := d.runner
	var reps []int
	d.runner = func(o *tuneOptions, tc *toolchain.Toolchain, log io.Writer) (tune.Runner, error) {
		r, err := run(o, tc, log)
		return tune.RunnerFunc(func(ctx context.Context, j tune.Job) (tune.Output, error) {
			reps = append(reps, j.Reps)
			return r.Run(ctx, j)
		}), err
	}
	var stderr bytes.Buffer
	if err := runTune(context.Background(), &env{stdout: io.Discard, stderr: &stderr}, o, d); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	cands, _ := tune.Select(tiling.Space(tiling.KernelBwdDSwiGLU, tiling.ArchSM90a, tiling.BF16), tune.Selection{Filter: []string{"pingpong", "c1x1"}})
	screened := 0
	for _, r := range reps {
		if r == tune.ScreenReps {
			screened++
		}
	}
	full := len(runs) - screened
	if screened != len(cands) || full < 3 || full > 4 {
		t.Errorf("%d screened (want %d), %d full (want 3, or 4 with the heuristic)", screened, len(cands), full)
	}
	read, err := tune.ReadDB(db)
	if err != nil {
		t.Fatal(err)
	}
	e := read.Entries[0]
	best, ok := e.Best()
	if !ok || best.Screened {
		t.Fatalf("best %+v: want a full measurement", best)
	}
	nfull := 0
	for _, r := range e.Results {
		if !r.Screened {
			nfull++
		}
	}
	if nfull != full {
		t.Errorf("%d full results in the DB, %d full runs", nfull, full)
	}
	runs, reps = nil, nil
	if err := runTune(context.Background(), &env{stdout: io.Discard, stderr: io.Discard}, o, d); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Errorf("the rerun ran %d jobs, want none (all recorded)", len(runs))
	}
}
