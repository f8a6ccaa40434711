package toolchain

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeCUDA lays out a fake toolkit bin dir under root: nvcc (answering
// --version) and, unless noPtxas, ptxas. It returns the nvcc path.
func fakeCUDA(t *testing.T, binDir, version string, noPtxas bool) string {
	t.Helper()
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	nvcc := "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V" + version + "'\n"
	writeExec(t, filepath.Join(binDir, "nvcc"), nvcc)
	if !noPtxas {
		writeExec(t, filepath.Join(binDir, "ptxas"), "#!/bin/sh\nexit 0\n")
	}
	return filepath.Join(binDir, "nvcc")
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// isolateToolchainEnv points every discovery input at empty places, so only
// what a test lays out can be found. It skips when a system-wide CUDA in a
// fixed location (/usr/local/cuda, /usr/lib site-packages) would interfere.
func isolateToolchainEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CUDA_HOME", "")
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("SWIGEN_CUDA_VENV", "")
	t.Setenv("PATH", "/usr/bin:/bin")
	if _, err := exec.LookPath("nvcc"); err == nil {
		t.Skip("skipping discovery-order test: nvcc in /usr/bin or /bin")
	}
	if tc, err := Find(FindOptions{}); err == nil {
		t.Skipf("skipping discovery-order test: a system CUDA at %s would win", tc.NVCC)
	}
}

// Not parallel: these tests change the process environment.
func TestFindOrder(t *testing.T) {
	isolateToolchainEnv(t)
	root := t.TempDir()
	explicit := fakeCUDA(t, filepath.Join(root, "explicit"), "13.0.1", false)
	cudaHome := fakeCUDA(t, filepath.Join(root, "cudahome", "bin"), "13.0.2", false)
	onPath := fakeCUDA(t, filepath.Join(root, "path"), "13.0.3", false)
	venv := filepath.Join(root, "venv")
	inVenv := fakeCUDA(t, filepath.Join(venv, "lib", "python3.11", "site-packages", "nvidia", "cu13", "bin"), "13.0.4", false)
	virtualEnv := filepath.Join(root, "virtualenv")
	inVirtualEnv := fakeCUDA(t, filepath.Join(virtualEnv, "lib", "python3.12", "site-packages", "nvidia", "cu13", "bin"), "13.0.5", false)
	home := os.Getenv("HOME")
	inHomeCache := fakeCUDA(t, filepath.Join(home, ".cache", "swigen-cuda", "lib", "python3.11", "site-packages", "nvidia", "cu13", "bin"), "13.0.6", false)
	inLocal := fakeCUDA(t, filepath.Join(home, ".local", "lib", "python3.13", "site-packages", "nvidia", "cu13", "bin"), "13.0.7", false)

	tests := []struct {
		name string
		o    FindOptions
		env  map[string]string
		want string
	}{
		{"explicit file beats all", FindOptions{NVCC: explicit},
			map[string]string{"CUDA_HOME": filepath.Join(root, "cudahome")}, explicit},
		{"explicit dir", FindOptions{NVCC: filepath.Dir(explicit)}, nil, explicit},
		{"CUDA_HOME beats PATH", FindOptions{},
			map[string]string{"CUDA_HOME": filepath.Join(root, "cudahome"), "PATH": filepath.Dir(onPath) + ":/usr/bin:/bin"}, cudaHome},
		{"PATH beats venvs", FindOptions{},
			map[string]string{"PATH": filepath.Dir(onPath) + ":/usr/bin:/bin", "SWIGEN_CUDA_VENV": venv}, onPath},
		{"SWIGEN_CUDA_VENV beats VIRTUAL_ENV", FindOptions{},
			map[string]string{"SWIGEN_CUDA_VENV": venv, "VIRTUAL_ENV": virtualEnv}, inVenv},
		{"VIRTUAL_ENV beats ~/.cache/swigen-cuda", FindOptions{},
			map[string]string{"VIRTUAL_ENV": virtualEnv}, inVirtualEnv},
		{"~/.cache/swigen-cuda beats ~/.local", FindOptions{}, nil, inHomeCache},
		{"CUDA_HOME without nvcc falls through", FindOptions{},
			map[string]string{"CUDA_HOME": filepath.Join(root, "nothing")}, inHomeCache},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			tc, err := Find(tt.o)
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			if tc.NVCC != tt.want || tc.PTXAS != filepath.Join(filepath.Dir(tt.want), "ptxas") {
				t.Errorf("found %+v, want nvcc %s with its ptxas", tc, tt.want)
			}
		})
	}
	// With the home cache gone, ~/.local is next.
	if err := os.RemoveAll(filepath.Join(home, ".cache")); err != nil {
		t.Fatal(err)
	}
	if tc, err := Find(FindOptions{}); err != nil || tc.NVCC != inLocal || tc.Version != "13.0.7" {
		t.Errorf("Find = %+v, %v; want %s version 13.0.7", tc, err, inLocal)
	}
}

func TestFindErrors(t *testing.T) {
	isolateToolchainEnv(t)
	root := t.TempDir()
	noPtxas := fakeCUDA(t, filepath.Join(root, "noptxas", "bin"), "13.0.88", true)

	_, err := Find(FindOptions{})
	if !errors.Is(err, ErrNoCompiler) {
		t.Fatalf("empty search: err = %v, want ErrNoCompiler", err)
	}
	for _, want := range []string{"run `swigen toolchain install`", "`pip install " + strings.Join(Pins, " ") + "`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	home := os.Getenv("HOME")
	wheel := "lib/python3*/site-packages/nvidia/cu13/bin/nvcc"
	wantSearched := []string{
		"  $CUDA_HOME/bin/nvcc: $CUDA_HOME not set",
		"  nvcc on $PATH: not found",
		"  /usr/local/cuda/bin/nvcc: not found",
		"  $SWIGEN_CUDA_VENV/" + wheel + ": $SWIGEN_CUDA_VENV not set",
		"  $VIRTUAL_ENV/" + wheel + ": $VIRTUAL_ENV not set",
		"  " + home + "/.cache/swigen-cuda/" + wheel + " (the default venv of swigen toolchain install): not found",
		"  " + home + "/.local/" + wheel + ": not found",
		"  /usr/lib/python3*/site-packages/nvidia/cu13/bin/nvcc: not found",
		"  /usr/lib/python3/dist-packages/nvidia/cu13/bin/nvcc: not found",
		"  /usr/local/lib/python3*/site-packages/nvidia/cu13/bin/nvcc: not found",
		"  /usr/local/lib/python3*/dist-packages/nvidia/cu13/bin/nvcc: not found",
		"  /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc: not found",
	}
	_, searched, ok := strings.Cut(err.Error(), "\nsearched, in order:\n")
	if !ok {
		t.Fatalf("error lists no places searched:\n%v", err)
	}
	if diff := cmp.Diff(wantSearched, strings.Split(searched, "\n")); diff != "" {
		t.Errorf("places searched (-want +got):\n%s", diff)
	}

	// Set variables name their value; an nvcc that is there but unusable
	// says why; a venv named twice is reported once.
	venv := filepath.Join(home, ".cache", "swigen-cuda")
	t.Setenv("CUDA_HOME", filepath.Join(root, "noptxas"))
	t.Setenv("SWIGEN_CUDA_VENV", venv)
	t.Setenv("VIRTUAL_ENV", venv)
	inVenv := fakeCUDA(t, filepath.Join(venv, "lib", "python3.12", "site-packages", "nvidia", "cu13", "bin"), "13.0.88", true)
	_, err = Find(FindOptions{})
	if !errors.Is(err, ErrNoCompiler) {
		t.Fatalf("unusable nvccs: err = %v, want ErrNoCompiler", err)
	}
	for _, want := range []string{
		"\n  " + noPtxas + " ($CUDA_HOME/bin/nvcc): unusable: " + noPtxas + ": no ptxas next to it in " + filepath.Dir(noPtxas) + "\n",
		"\n  " + venv + "/" + wheel + " ($SWIGEN_CUDA_VENV): unusable: " + inVenv + ": no ptxas next to it",
		"\n  " + venv + "/" + wheel + " ($VIRTUAL_ENV): same nvcc as above\n",
		"\n  " + venv + "/" + wheel + " (the default venv of swigen toolchain install): same nvcc as above\n",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}

	_, err = Find(FindOptions{NVCC: filepath.Join(root, "missing", "nvcc")})
	if err == nil || !strings.Contains(err.Error(), "explicit nvcc") {
		t.Errorf("explicit missing nvcc: err = %v, want an explicit-nvcc error", err)
	}

	bad := filepath.Join(root, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	writeExec(t, filepath.Join(bad, "nvcc"), "#!/bin/sh\necho 'nvcc: who knows'\n")
	writeExec(t, filepath.Join(bad, "ptxas"), "#!/bin/sh\n")
	_, err = Find(FindOptions{NVCC: bad})
	if err == nil || !strings.Contains(err.Error(), "release X.Y, VX.Y.Z") {
		t.Errorf("unparsable version: err = %v", err)
	}
}

func TestParseNVCCVersion(t *testing.T) {
	t.Parallel()
	real := `nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
`
	if v, err := parseNVCCVersion(real); err != nil || v != "13.0.88" {
		t.Errorf("parseNVCCVersion = %q, %v; want 13.0.88", v, err)
	}
	if _, err := parseNVCCVersion("garbage"); err == nil {
		t.Error("parseNVCCVersion(garbage) succeeded")
	}
}

func TestGencodeFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arch    string
		want    []string
		wantErr bool
	}{
		{"sm_90a", []string{"-gencode", "arch=compute_90a,code=sm_90a"}, false},
		{"sm_100a", []string{"-gencode", "arch=compute_100a,code=sm_100a"}, false},
		{"sm_100f", []string{"-gencode", "arch=compute_100f,code=sm_100f"}, false},
		{"", nil, true},
		{"compute_90a", nil, true},
		{"sm_90a;rm", nil, true},
	}
	for _, tt := range tests {
		got, err := gencodeFlags(tt.arch)
		if (err != nil) != tt.wantErr {
			t.Errorf("gencodeFlags(%q) err = %v, wantErr %v", tt.arch, err, tt.wantErr)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("gencodeFlags(%q) (-want +got):\n%s", tt.arch, diff)
		}
	}
}

func TestCompileBadInput(t *testing.T) {
	t.Parallel()
	tc, calls := fakeToolchain(t)
	ctx := context.Background()
	tests := []struct {
		name, kernel string
		src          string
		o            CompileOptions
		want         string
	}{
		{"no name", "", "x", CompileOptions{Arch: "sm_90a"}, "compile: empty kernel name"},
		{"no source", "k", "", CompileOptions{Arch: "sm_90a"}, "compile k: empty source"},
		{"bad arch", "k", "x", CompileOptions{Arch: "sm90"}, `compile k: arch "sm90": want sm_<NN>[a|f]`},
	}
	for _, tt := range tests {
		_, err := tc.Compile(ctx, tt.kernel, []byte(tt.src), tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	var nilTC *Toolchain
	if _, err := nilTC.Compile(ctx, "k", []byte("x"), CompileOptions{Arch: "sm_90a"}); !errors.Is(err, ErrNoCompiler) {
		t.Errorf("nil toolchain: err = %v, want ErrNoCompiler", err)
	}
	if n := len(calls()); n != 0 {
		t.Errorf("bad input ran the compiler %d times", n)
	}
}

func TestCompileErrorRepro(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, marker, tool string
		exit               int
		stderr             string
	}{
		{"nvcc fails", "FAIL_NVCC", "nvcc", 2, "error: fake nvcc failure"},
		{"ptxas fails", "FAIL_PTXAS", "ptxas", 3, "fake ptxas failure in weird_name_.ptx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc, _ := fakeToolchain(t)
			src := "// " + tt.marker + "\n__global__ void kern() {}\n"
			r, err := tc.Compile(context.Background(), "weird name?", []byte(src), CompileOptions{Arch: "sm_90a", CacheDir: t.TempDir()})
			var ce *CompileError
			if r != nil || !errors.As(err, &ce) {
				t.Fatalf("Compile = %v, %v; want nil and *CompileError", r, err)
			}
			t.Cleanup(func() { os.RemoveAll(ce.Dir) })
			if filepath.Base(ce.Argv[0]) != tt.tool || ce.ExitCode != tt.exit || !strings.Contains(ce.Stderr, tt.stderr) {
				t.Errorf("CompileError = %+v, want %s exit %d with %q", ce, tt.tool, tt.exit, tt.stderr)
			}
			kept, err2 := os.ReadFile(ce.SourcePath)
			if err2 != nil || string(kept) != src {
				t.Errorf("source not kept at %s: %v", ce.SourcePath, err2)
			}
			msg := err.Error()
			if !strings.Contains(msg, "source kept at "+ce.SourcePath) {
				t.Errorf("message does not print the source path:\n%s", msg)
			}
			lines := strings.Split(msg, "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "repro: cd ") {
				t.Fatalf("last line %q is not a repro line", last)
			}
			out, rerr := exec.Command("sh", "-c", strings.TrimPrefix(last, "repro: ")).CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(rerr, &ee) || ee.ExitCode() != tt.exit || !strings.Contains(string(out), tt.stderr) {
				t.Errorf("repro: %v, output %q; want exit %d with %q", rerr, out, tt.exit, tt.stderr)
			}
		})
	}
}

func TestCompileCanceled(t *testing.T) {
	t.Parallel()
	tc, _ := fakeToolchain(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tc.Compile(ctx, "kern", []byte("x"), CompileOptions{Arch: "sm_90a", NoCache: true})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	got := shellJoin([]string{"/a/nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "it's", "a b", ""})
	want := `/a/nvcc -gencode arch=compute_90a,code=sm_90a 'it'\''s' 'a b' ''`
	if got != want {
		t.Errorf("shellJoin = %s\nwant        %s", got, want)
	}
}

// sassExcerpt is cuobjdump -sass output of the sm_90a simple kernel (cut).
const sassExcerpt = `
	code for sm_90a
		Function : simple
	.headerflags	@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
                                                                           /* 0x000fe40000000800 */
        /*0010*/                   S2R R7, SR_TID.X ;                      /* 0x0000000000077919 */
        /*0130*/              @!P0 LDG.E R0, desc[UR6][R2.64] ;            /* 0x0000000602008981 */
        /*0150*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;           /* 0x0000000000007b1d */
        /*0160*/                   WARPGROUP.ARRIVE ;                      /* 0x0000000000007b1d */
        /*0170*/              @!UP0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT ; /* 0x0 */
        /*0180*/                   NOP;                                    /* 0x0000000000007918 */
        /*0190*/                   EXIT ;                                  /* 0x000000000000794d */
`

func TestCheckOpcodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want []string
		err  string
	}{
		{"exact and prefix", []string{"LDC", "LDG", "LDG.E", "BAR.SYNC", "HGMMA", "HGMMA.64x128x16", "WARPGROUP.ARRIVE", "NOP", "EXIT"}, ""},
		{"missing", []string{"HGMMA", "UTMALDG", "SYNCS", "LD"}, "missing opcodes UTMALDG, SYNCS, LD"},
		{"none wanted", nil, ""},
	}
	for _, tt := range tests {
		err := CheckOpcodes(sassExcerpt, tt.want)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: CheckOpcodes = %v, want %q", tt.name, err, tt.err)
		}
	}
	want := map[string]bool{"LDC": true, "S2R": true, "LDG.E": true, "BAR.SYNC.DEFER_BLOCKING": true,
		"WARPGROUP.ARRIVE": true, "HGMMA.64x128x16.F32.BF16": true, "NOP": true, "EXIT": true}
	if diff := cmp.Diff(want, sassOpcodes(sassExcerpt)); diff != "" {
		t.Errorf("sassOpcodes (-want +got):\n%s", diff)
	}
}

func TestSASSWithoutCuobjdump(t *testing.T) {
	t.Parallel()
	tc := &Toolchain{NVCC: "/x/nvcc", PTXAS: "/x/ptxas"}
	if _, err := tc.SASS(context.Background(), []byte("cubin")); err == nil || !strings.Contains(err.Error(), "nvidia-cuda-cuobjdump") {
		t.Errorf("SASS without cuobjdump: err = %v, want an install hint", err)
	}
}

func TestDefaultVenv(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SWIGEN_CUDA_VENV", "")
	if got, err := DefaultVenv(); err != nil || got != filepath.Join(home, ".cache", "swigen-cuda") {
		t.Errorf("DefaultVenv() = %q, %v; want ~/.cache/swigen-cuda", got, err)
	}
	t.Setenv("SWIGEN_CUDA_VENV", "/opt/cuda-venv")
	if got, err := DefaultVenv(); err != nil || got != "/opt/cuda-venv" {
		t.Errorf("DefaultVenv() = %q, %v; want $SWIGEN_CUDA_VENV", got, err)
	}
}

func TestVenvSitePackages(t *testing.T) {
	t.Parallel()
	venv := t.TempDir()
	for _, d := range []string{"lib/python3/site-packages", "lib/python3.11/site-packages", "lib/python3.12/site-packages", "lib/perl5/site-packages"} {
		if err := os.MkdirAll(filepath.Join(venv, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Reverse lexical order, as Find tries them: '/' sorts after '.'.
	want := []string{
		filepath.Join(venv, "lib/python3/site-packages"),
		filepath.Join(venv, "lib/python3.12/site-packages"),
		filepath.Join(venv, "lib/python3.11/site-packages"),
	}
	if diff := cmp.Diff(want, VenvSitePackages(venv)); diff != "" {
		t.Errorf("VenvSitePackages (-want +got):\n%s", diff)
	}
	if got := VenvSitePackages(filepath.Join(venv, "missing")); len(got) != 0 {
		t.Errorf("VenvSitePackages(missing) = %q, want none", got)
	}
}

// TestPins checks the pins are pip requirement specifiers of exact
// versions, one per package, and agree with the Pinned*Version constants.
func TestPins(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range Pins {
		name, ver, ok := strings.Cut(p, "==")
		if !ok || name == "" || ver == "" || strings.ContainsAny(p, " <>~!;,") {
			t.Errorf("pin %q is not NAME==VERSION", p)
		}
		if seen[name] {
			t.Errorf("package %s pinned twice", name)
		}
		seen[name] = true
	}
	for _, want := range []string{"nvidia-cuda-nvcc==" + PinnedNVCCVersion, "nvidia-cuda-cuobjdump==" + PinnedCUObjdumpVersion, "nvidia-cuda-nvdisasm==" + PinnedCUObjdumpVersion} {
		if !slices.Contains(Pins, want) {
			t.Errorf("Pins lack %s", want)
		}
	}
}
