package toolchain

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var updatePtxasLogs = flag.Bool("update-ptxas-logs", false, "rewrite gen/toolchain/testdata/ptxas/*.log with the installed compiler")

// realToolchain returns the installed CUDA toolchain or skips the test.
// With SWIGEN_REQUIRE_COMPILER=1 (set by .ci/run) a missing compiler fails.
func realToolchain(t *testing.T) *Toolchain {
	t.Helper()
	tc, err := Find(FindOptions{})
	if err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("skipping real-compiler test: no CUDA compiler found (bash .ci/run installs one): %v", err)
	}
	return tc
}

// ptxasLogCases are the stored ptxas logs and how each was produced; the
// .cu sources sit next to the logs.
var ptxasLogCases = []struct {
	log, src, arch string
	ptxasFlags     []string
}{
	{"sm90_simple", "sm90_simple", "sm_90a", nil},
	{"sm90_spill", "sm90_spill", "sm_90a", nil},
	{"sm90_spill_warn", "sm90_spill", "sm_90a", []string{"--warn-on-spills"}},
	{"sm90_stack", "sm90_stack", "sm_90a", nil},
	{"sm90_stack_warn", "sm90_stack", "sm_90a", []string{"--warn-on-local-memory-usage"}},
	{"sm90_setmaxnreg", "sm90_setmaxnreg", "sm_90a", nil},
	{"sm90_wgmma_serialized", "sm90_wgmma_serialized", "sm_90a", nil},
	{"sm100_tcgen05", "sm100_tcgen05", "sm_100a", nil},
}

func allowAll(arch string, ptxasFlags []string, cacheDir string) CompileOptions {
	return CompileOptions{Arch: arch, AllowSpills: true, AllowStack: true, AllowNotes: true,
		PtxasFlags: ptxasFlags, CacheDir: cacheDir}
}

// TestPtxasLogsAreReal recompiles every stored log's kernel and checks the
// fresh log parses to the same report, so the parser tests stay anchored to
// what the pinned ptxas prints. -update-ptxas-logs rewrites the logs.
func TestPtxasLogsAreReal(t *testing.T) {
	tc := realToolchain(t)
	cache := t.TempDir()
	for _, c := range ptxasLogCases {
		t.Run(c.log, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(filepath.Join("testdata", "ptxas", c.src+".cu"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := tc.Compile(context.Background(), c.src, src, allowAll(c.arch, c.ptxasFlags, cache))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			logPath := filepath.Join("testdata", "ptxas", c.log+".log")
			if *updatePtxasLogs {
				if err := os.WriteFile(logPath, []byte(r.Report.Log), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			stored, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ParsePtxasVerbose(string(stored))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParsePtxasVerbose(r.Report.Log)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fresh ptxas log of %s parses differently from %s (-stored +fresh):\n%s\nrerun with -update-ptxas-logs if the compiler changed", c.src, logPath, diff)
			}
		})
	}
}

func TestCompileRealSm90(t *testing.T) {
	t.Parallel()
	tc := realToolchain(t)
	src, err := os.ReadFile("testdata/ptxas/sm90_simple.cu")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	ctx := context.Background()
	o := CompileOptions{Arch: "sm_90a", CacheDir: cache}
	first, err := tc.Compile(ctx, "simple", src, o)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if first.CacheHit {
		t.Error("first compile into an empty cache reported a hit")
	}
	wantFn := []FunctionReport{{Name: "simple", Entry: true, Arch: "sm_90a", Registers: first.Report.Functions[0].Registers,
		Barriers: 1, StaticSmem: 512}}
	if diff := cmp.Diff(wantFn, first.Report.Functions); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	second, err := tc.Compile(ctx, "simple", src, o)
	if err != nil {
		t.Fatalf("second Compile: %v", err)
	}
	if !second.CacheHit || second.SHA256 != first.SHA256 {
		t.Errorf("second compile: CacheHit=%v sha %s, want hit with sha %s", second.CacheHit, second.SHA256, first.SHA256)
	}
	// Builds are byte-reproducible: the scratch dir is stripped from the PTX
	// and the source's modification time (recorded by -lineinfo) is pinned.
	third, err := tc.Compile(ctx, "simple", src, CompileOptions{Arch: "sm_90a", NoCache: true})
	if err != nil {
		t.Fatalf("uncached Compile: %v", err)
	}
	if third.SHA256 != first.SHA256 {
		t.Errorf("rebuild cubin sha %s != first %s: builds are not reproducible", third.SHA256, first.SHA256)
	}
	if tc.CUObjdump == "" || tc.NVDisasm == "" {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("toolchain %v lacks cuobjdump/nvdisasm", tc)
		}
		t.Skipf("skipping SASS check: %v", tc)
	}
	sass, err := tc.SASS(ctx, first.Cubin)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckOpcodes(sass, []string{"WARPGROUP.ARRIVE", "BAR.SYNC", "STS", "LDS"}); err != nil {
		t.Error(err)
	}
	if err := CheckOpcodes(sass, []string{"HGMMA"}); err == nil {
		t.Error("CheckOpcodes found HGMMA in a kernel without wgmma.mma_async")
	}
}

func TestCompileRealSm100(t *testing.T) {
	t.Parallel()
	tc := realToolchain(t)
	src, err := os.ReadFile("testdata/ptxas/sm100_tcgen05.cu")
	if err != nil {
		t.Fatal(err)
	}
	r, err := tc.Compile(context.Background(), "tmem_roundtrip", src, CompileOptions{Arch: "sm_100a", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if r.Report.Arch != "sm_100a" || len(r.Report.Functions) != 1 || r.Report.Functions[0].Name != "tmem_roundtrip" {
		t.Errorf("report = %+v, want one sm_100a function tmem_roundtrip", r.Report)
	}
	if tc.CUObjdump == "" || tc.NVDisasm == "" {
		t.Skipf("skipping SASS check: %v", tc)
	}
	sass, err := tc.SASS(context.Background(), r.Cubin)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckOpcodes(sass, []string{"UTCATOMSWS", "BAR.SYNC"}); err != nil {
		t.Error(err)
	}
}

func TestCompileRealBuildCheck(t *testing.T) {
	t.Parallel()
	tc := realToolchain(t)
	cache := t.TempDir()
	tests := []struct {
		src      string
		o        CompileOptions
		wantErr  bool
		wantWhat []string // BuildProblem.What, in order
	}{
		{"sm90_spill", CompileOptions{Arch: "sm_90a"}, true, []string{"spill", "stack"}},
		{"sm90_spill", CompileOptions{Arch: "sm_90a", AllowSpills: true}, true, []string{"stack"}},
		{"sm90_spill", CompileOptions{Arch: "sm_90a", AllowSpills: true, AllowStack: true}, false, nil},
		{"sm90_stack", CompileOptions{Arch: "sm_90a"}, true, []string{"stack"}},
		{"sm90_setmaxnreg", CompileOptions{Arch: "sm_90a"}, true, []string{"note"}},
		{"sm90_wgmma_serialized", CompileOptions{Arch: "sm_90a", AllowNotes: true}, false, nil},
	}
	for _, tt := range tests {
		src, err := os.ReadFile(filepath.Join("testdata", "ptxas", tt.src+".cu"))
		if err != nil {
			t.Fatal(err)
		}
		tt.o.CacheDir = cache
		r, err := tc.Compile(context.Background(), tt.src, src, tt.o)
		if r == nil {
			t.Fatalf("%s: Compile returned no result: %v", tt.src, err)
		}
		if (err != nil) != tt.wantErr {
			t.Errorf("%s %+v: err = %v, wantErr %v", tt.src, tt.o, err, tt.wantErr)
			continue
		}
		if err == nil {
			continue
		}
		var bce *BuildCheckError
		if !errors.As(err, &bce) {
			t.Errorf("%s: err %T %v, want *BuildCheckError", tt.src, err, err)
			continue
		}
		var what []string
		for _, p := range bce.Problems {
			what = append(what, p.What)
		}
		if diff := cmp.Diff(tt.wantWhat, what, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s\nerror: %v", tt.src, diff, err)
		}
	}
}

func TestCompileRealError(t *testing.T) {
	t.Parallel()
	tc := realToolchain(t)
	src, err := os.ReadFile("testdata/ptxas/sm90_bad.cu")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tc.Compile(context.Background(), "bad", src, CompileOptions{Arch: "sm_90a", NoCache: true})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("Compile error = %v, want *CompileError", err)
	}
	t.Cleanup(func() { os.RemoveAll(ce.Dir) })
	// nvcc -ptx already runs ptxas over inline asm for an arch-specific
	// target, so the failing step is nvcc.
	if !strings.Contains(ce.Stderr, "not_an_instruction") {
		t.Errorf("CompileError = %+v, want a failure on not_an_instruction", ce)
	}
	// The repro line must reproduce the failure as printed.
	msg := err.Error()
	i := strings.LastIndex(msg, "repro: ")
	if i < 0 {
		t.Fatalf("error has no repro line:\n%s", msg)
	}
	out, rerr := exec.Command("sh", "-c", msg[i+len("repro: "):]).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(rerr, &ee) || ee.ExitCode() != ce.ExitCode {
		t.Errorf("repro exited %v, want status %d; output:\n%s", rerr, ce.ExitCode, out)
	}
}

func TestCheckSelfContained(t *testing.T) {
	for _, tc := range []struct {
		name, ptx string
		ok        bool
	}{
		{"own source only", "\t.file\t1 \"k.cu\"\n\t.loc 1 2 3\n", true},
		{"no line table", ".version 9.0\n", true},
		{"a CUDA header", "\t.file\t1 \"k.cu\"\n\t.file\t2 \"/usr/local/cuda/include/sm_30_intrinsics.hpp\"\n", false},
		{"another source", "\t.file\t1 \"other.cu\", 0, 0\n", false},
		{"a library header", "\t.file\t1 \"k.cu\"\n\t.file\t2 \"swigen_v1_common.cuh\", 0, 10\n", true},
		{"a header outside the library", "\t.file\t1 \"k.cu\"\n\t.file\t2 \"swigen_v2_common.cuh\", 0, 10\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkSelfContained([]byte(tc.ptx), "k.cu", []includeFile{{Path: "swigen_v1_common.cuh"}})
			if (err == nil) != tc.ok {
				t.Fatalf("checkSelfContained = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestCompileRejectsHeaderCode: a kernel that calls CUDA header code fails
// to build, naming the header, instead of giving a cubin that differs from
// machine to machine.
func TestCompileRejectsHeaderCode(t *testing.T) {
	tc := realToolchain(t)
	src := []byte("extern \"C\" __global__ void k(int* p) { __syncwarp(); p[threadIdx.x] = 1; }\n")
	_, err := tc.Compile(context.Background(), "k", src, CompileOptions{Arch: "sm_90a", NoCache: true})
	if err == nil || !strings.Contains(err.Error(), "sm_30_intrinsics.hpp") {
		t.Fatalf("Compile of a kernel calling __syncwarp: err = %v, want one naming sm_30_intrinsics.hpp", err)
	}
}

// TestCompileLeavesNoTemp: nvcc's intermediate files go to a private
// directory, so neither a compile nor an interrupted one leaves anything
// in the user's TMPDIR.
func TestCompileLeavesNoTemp(t *testing.T) {
	tc := realToolchain(t)
	src, err := os.ReadFile("testdata/ptxas/sm90_simple.cu")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	left := func(when string) {
		t.Helper()
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("%s: TMPDIR holds %q", when, names)
		}
	}
	if _, err := tc.Compile(context.Background(), "simple", src, CompileOptions{Arch: "sm_90a", CacheDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	left("after a compile")
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := tc.Compile(ctx, "simple", src, CompileOptions{Arch: "sm_90a", CacheDir: t.TempDir()}); err == nil {
		t.Log("the compile finished before the interrupt; nothing was interrupted")
	}
	left("after an interrupted compile")
}
