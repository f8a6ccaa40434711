package toolchain

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeNVCC mimics `nvcc -ptx`: it copies the .cu to the -o file behind a
// "// fake ptx" line and fails when the source says FAIL_NVCC.
const fakeNVCC = `#!/bin/sh
case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0;; esac
d=$(dirname "$0")
echo "nvcc $*" >> "$d/calls"
out=""; in=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift;; *) in="$1";; esac; shift; done
if grep -q FAIL_NVCC "$in"; then echo "$in(1): error: fake nvcc failure" >&2; exit 2; fi
grep -q SLOW "$in" && sleep 0.2
{ echo "// fake ptx"; cat "$in"; } > "$out"
`

// fakePTXAS mimics `ptxas -v`: the cubin is a checksum of the PTX and the
// log reports one kernel, spilling when the source says SPILL.
const fakePTXAS = `#!/bin/sh
d=$(dirname "$0")
echo "ptxas $*" >> "$d/calls"
out=""; in=""; arch=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift;; -arch=*) arch="${1#-arch=}";; *) in="$1";; esac; shift; done
if grep -q FAIL_PTXAS "$in"; then echo "ptxas error   : fake ptxas failure in $in" >&2; exit 3; fi
{ echo "fake cubin for $arch"; cksum < "$in"; } > "$out"
n=0; grep -q SPILL "$in" && n=16
cat >&2 <<EOF
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'kern' for '$arch'
ptxas info    : Function properties for kern
    $n bytes stack frame, $n bytes spill stores, $n bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem
EOF
`

// fakeToolchain writes fake nvcc and ptxas into a temp dir; calls returns
// the commands they have run so far.
func fakeToolchain(t *testing.T) (tc *Toolchain, calls func() []string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"nvcc": fakeNVCC, "ptxas": fakePTXAS} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tc, err := Find(FindOptions{NVCC: dir})
	if err != nil {
		t.Fatalf("Find(fake): %v", err)
	}
	return tc, func() []string {
		b, err := os.ReadFile(filepath.Join(dir, "calls"))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

func TestCacheHitMiss(t *testing.T) {
	t.Parallel()
	tc, calls := fakeToolchain(t)
	cache := t.TempDir()
	ctx := context.Background()
	src := []byte("__global__ void kern() {}\n")
	o := CompileOptions{Arch: "sm_90a", CacheDir: cache}

	first, err := tc.Compile(ctx, "kern", src, o)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if first.CacheHit || len(calls()) != 2 {
		t.Fatalf("first compile: hit=%v calls=%q, want a miss running nvcc and ptxas", first.CacheHit, calls())
	}
	second, err := tc.Compile(ctx, "kern", src, o)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if !second.CacheHit || len(calls()) != 2 {
		t.Errorf("second compile: hit=%v calls=%q, want a hit running nothing", second.CacheHit, calls())
	}
	second.CacheHit = false
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("cached result differs (-built +cached):\n%s", diff)
	}
	want := []string{
		"nvcc -ptx -gencode arch=compute_90a,code=sm_90a -std=c++17 -O3 -lineinfo -o kern.ptx kern.cu",
		"ptxas -arch=sm_90a -v -lineinfo -o kern.cubin kern.ptx",
	}
	if diff := cmp.Diff(want, calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	ents, _ := os.ReadDir(cache)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "kern-") || len(ents[0].Name()) != len("kern-")+16 {
		t.Errorf("cache dir entries = %v, want one kern-<16 hex>", ents)
	}

	// Every key input makes a new entry.
	variants := []struct {
		name string
		src  []byte
		o    CompileOptions
	}{
		{"source", []byte("__global__ void kern() { }\n"), o},
		{"arch", src, CompileOptions{Arch: "sm_100a", CacheDir: cache}},
		{"nvcc flags", src, CompileOptions{Arch: "sm_90a", CacheDir: cache, ExtraFlags: []string{"-DX=1"}}},
		{"ptxas flags", src, CompileOptions{Arch: "sm_90a", CacheDir: cache, PtxasFlags: []string{"--warn-on-spills"}}},
	}
	for i, v := range variants {
		r, err := tc.Compile(ctx, "kern", v.src, v.o)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if r.CacheHit || len(calls()) != 2*(i+2) {
			t.Errorf("changing %s: hit=%v after %d calls, want a miss", v.name, r.CacheHit, len(calls()))
		}
	}
	// So does another compiler version.
	tc2 := *tc
	tc2.Version = "13.0.89"
	if r, err := tc2.Compile(ctx, "kern", src, o); err != nil || r.CacheHit {
		t.Errorf("other compiler version: hit=%v err=%v, want a miss", r != nil && r.CacheHit, err)
	}
}

func TestCacheRecheckPolicyOnHit(t *testing.T) {
	t.Parallel()
	tc, calls := fakeToolchain(t)
	cache := t.TempDir()
	ctx := context.Background()
	src := []byte("// SPILL\n__global__ void kern() {}\n")
	r, err := tc.Compile(ctx, "kern", src, CompileOptions{Arch: "sm_90a", CacheDir: cache})
	var bce *BuildCheckError
	if !errors.As(err, &bce) || r == nil {
		t.Fatalf("Compile = %v, %v; want a result and a *BuildCheckError", r, err)
	}
	if !strings.Contains(err.Error(), "kern: spill: 16 bytes spill stores, 16 bytes spill loads") {
		t.Errorf("error does not name the kernel and its numbers:\n%v", err)
	}
	r, err = tc.Compile(ctx, "kern", src, CompileOptions{Arch: "sm_90a", CacheDir: cache, AllowSpills: true, AllowStack: true})
	if err != nil || !r.CacheHit || len(calls()) != 2 {
		t.Errorf("allowed recompile: hit=%v err=%v calls=%d, want a clean hit", r.CacheHit, err, len(calls()))
	}
	_, err = tc.Compile(ctx, "kern", src, CompileOptions{Arch: "sm_90a", CacheDir: cache})
	if !errors.As(err, &bce) {
		t.Errorf("strict hit: err = %v, want *BuildCheckError", err)
	}
}

func TestCacheDamagedEntryIsRebuilt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, entry string)
	}{
		{"cubin changed", func(t *testing.T, e string) { writeFile(t, filepath.Join(e, cacheCubinFile), "garbage") }},
		{"cubin missing", func(t *testing.T, e string) { os.Remove(filepath.Join(e, cacheCubinFile)) }},
		{"ptx missing", func(t *testing.T, e string) { os.Remove(filepath.Join(e, cachePTXFile)) }},
		{"meta truncated", func(t *testing.T, e string) { writeFile(t, filepath.Join(e, cacheMetaFile), `{"format":`) }},
		{"meta for another key", func(t *testing.T, e string) {
			b, _ := os.ReadFile(filepath.Join(e, cacheMetaFile))
			writeFile(t, filepath.Join(e, cacheMetaFile), strings.Replace(string(b), `"key": "`, `"key": "0`, 1))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc, calls := fakeToolchain(t)
			cache := t.TempDir()
			ctx := context.Background()
			src := []byte("__global__ void kern() {}\n")
			o := CompileOptions{Arch: "sm_90a", CacheDir: cache}
			first, err := tc.Compile(ctx, "kern", src, o)
			if err != nil {
				t.Fatal(err)
			}
			entries, _ := filepath.Glob(filepath.Join(cache, "kern-*"))
			if len(entries) != 1 {
				t.Fatalf("entries = %q", entries)
			}
			tt.damage(t, entries[0])
			r, err := tc.Compile(ctx, "kern", src, o)
			if err != nil {
				t.Fatal(err)
			}
			if r.CacheHit || len(calls()) != 4 || !bytes.Equal(r.Cubin, first.Cubin) {
				t.Errorf("after damage: hit=%v calls=%d, want a rebuild", r.CacheHit, len(calls()))
			}
			if r, err := tc.Compile(ctx, "kern", src, o); err != nil || !r.CacheHit {
				t.Errorf("after rebuild: hit=%v err=%v, want the repaired entry to hit", r != nil && r.CacheHit, err)
			}
		})
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCacheConcurrentWriters builds one key from many goroutines at once:
// every caller gets the same cubin, one entry is published, and no temp
// directory is left behind.
func TestCacheConcurrentWriters(t *testing.T) {
	t.Parallel()
	tc, _ := fakeToolchain(t)
	cache := t.TempDir()
	src := []byte("// SLOW\n__global__ void kern() {}\n")
	const n = 8
	results := make([]*BuildResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = tc.Compile(context.Background(), "kern", src, CompileOptions{Arch: "sm_90a", CacheDir: cache})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if results[i].SHA256 != results[0].SHA256 {
			t.Errorf("writer %d: sha %s != %s", i, results[i].SHA256, results[0].SHA256)
		}
	}
	ents, _ := os.ReadDir(cache)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "kern-") {
		t.Errorf("cache holds %q, want exactly one kern-* entry and no temp dirs", names)
	}
}

func TestCacheIgnoresAndCleansTempDirs(t *testing.T) {
	t.Parallel()
	tc, calls := fakeToolchain(t)
	cache := t.TempDir()
	src := []byte("__global__ void kern() {}\n")
	o := CompileOptions{Arch: "sm_90a", CacheDir: cache}
	key := cacheKey(tc.Version, "sm_90a",
		[]string{"-ptx", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-O3", "-lineinfo", "-o", "kern.ptx", "kern.cu"},
		[]string{"-arch=sm_90a", "-v", "-lineinfo", "-o", "kern.cubin", "kern.ptx"}, src)
	// A writer that died mid-way leaves a temp dir; it must not count as the
	// entry, and once old it is removed by the next store.
	stale := filepath.Join(cache, cacheTmpPrefix+"kern-123")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(stale, cacheCubinFile), "partial")
	old := time.Now().Add(-2 * staleTmpAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	young := filepath.Join(cache, cacheTmpPrefix+"kern-456")
	if err := os.MkdirAll(young, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := tc.Compile(context.Background(), "kern", src, o)
	if err != nil || r.CacheHit || len(calls()) != 2 {
		t.Fatalf("Compile: hit=%v err=%v calls=%d, want a miss", r != nil && r.CacheHit, err, len(calls()))
	}
	if _, err := os.Stat(filepath.Join(cache, "kern-"+key[:16], cacheMetaFile)); err != nil {
		t.Errorf("entry not at the key's path: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp dir still there (err=%v)", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("young temp dir (maybe a live writer) was removed: %v", err)
	}
}

func TestCacheKey(t *testing.T) {
	t.Parallel()
	base := cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"))
	if base != cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src")) {
		t.Fatal("cacheKey is not deterministic")
	}
	others := map[string]string{
		"version":        cacheKey("13.0.89", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src")),
		"arch":           cacheKey("13.0.88", "sm_100a", []string{"-a", "b"}, []string{"-v"}, []byte("src")),
		"joined args":    cacheKey("13.0.88", "sm_90a", []string{"-ab"}, []string{"-v"}, []byte("src")),
		"args moved":     cacheKey("13.0.88", "sm_90a", []string{"-a"}, []string{"b", "-v"}, []byte("src")),
		"source":         cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src2")),
		"arg into src":   cacheKey("13.0.88", "sm_90a", []string{"-a"}, []string{"-v"}, []byte("bsrc")),
		"empty arg list": cacheKey("13.0.88", "sm_90a", nil, []string{"-a", "b", "-v"}, []byte("src")),
		"a header":       cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"), includeFile{Path: "h.cuh", Data: []byte("x")}),
	}
	inc := cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"), includeFile{Path: "h.cuh", Data: []byte("x")})
	for name, k := range map[string]string{
		"header bytes":     cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"), includeFile{Path: "h.cuh", Data: []byte("y")}),
		"header path":      cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"), includeFile{Path: "g.cuh", Data: []byte("x")}),
		"header into path": cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"), includeFile{Path: "h.cuhx", Data: nil}),
		"a second header":  cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("src"), includeFile{Path: "h.cuh", Data: []byte("x")}, includeFile{Path: "i.cuh", Data: nil}),
		"header into src":  cacheKey("13.0.88", "sm_90a", []string{"-a", "b"}, []string{"-v"}, []byte("srcx"), includeFile{Path: "h.cuh", Data: nil}),
	} {
		if k == inc {
			t.Errorf("changing the %s does not change the key", name)
		}
	}
	for name, k := range others {
		if k == base {
			t.Errorf("changing %s does not change the key", name)
		}
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("SWIGEN_CACHE_DIR", "/some/where")
	if d, err := DefaultCacheDir(); err != nil || d != "/some/where" {
		t.Errorf("DefaultCacheDir = %q, %v; want $SWIGEN_CACHE_DIR", d, err)
	}
	t.Setenv("SWIGEN_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if d, err := DefaultCacheDir(); err != nil || d != "/xdg/swigen" {
		t.Errorf("DefaultCacheDir = %q, %v; want /xdg/swigen", d, err)
	}
}
