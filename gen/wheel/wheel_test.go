package wheel

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/tiling"
)

var update = flag.Bool("update", false, "rewrite testdata/contents.golden with the installed compiler")

// contentsGolden lists the sm_90a bf16 wheel's files: each non-cubin
// file's name and sha256, each cubin's name (its bytes are the pinned
// compiler's, checked by gen's reproducibility tests), swigen_rt's files
// by name (they are python/swigen_rt's bytes: TestRuntimeVerbatim).
var contentsGolden = filepath.Join("testdata", "contents.golden")

// realToolchain returns the installed CUDA toolchain or skips the test.
// With SWIGEN_REQUIRE_COMPILER=1 (set by .ci/run) a missing compiler fails.
func realToolchain(t *testing.T) *toolchain.Toolchain {
	t.Helper()
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		if os.Getenv("SWIGEN_REQUIRE_COMPILER") == "1" {
			t.Fatalf("SWIGEN_REQUIRE_COMPILER=1 but no CUDA compiler: %v", err)
		}
		t.Skipf("skipping real-compiler test: no CUDA compiler found (bash .ci/run installs one): %v", err)
	}
	return tc
}

func contents(t *testing.T, w *Wheel) string {
	var b strings.Builder
	for _, f := range w.Files {
		switch {
		case strings.HasSuffix(f.Name, ".cubin"):
			fmt.Fprintf(&b, "%s\n", f.Name)
		case strings.HasPrefix(f.Name, "swigen_rt/"):
			// python/swigen_rt verbatim (TestRuntimeVerbatim): its edits
			// are not the wheel's news.
			fmt.Fprintf(&b, "%s (python/%s)\n", f.Name, f.Name)
		case strings.HasSuffix(f.Name, "/RECORD"):
			fmt.Fprintf(&b, "%s (the cubins' checksums)\n", f.Name)
		case f.Name == Package+"/"+BundleFile:
			fmt.Fprintf(&b, "%s %s (cubin checksums and compiler version cleared)\n", f.Name, bundleSum(t, w))
		default:
			fmt.Fprintf(&b, "%s %s\n", f.Name, f.SHA256)
		}
	}
	return b.String()
}

// bundleSum is the sha256 of w's bundle with the cubins' checksums and
// the compiler's version cleared: the selection, the dispatch plans and
// the CUDA sources' checksums (so a template change shows).
func bundleSum(t *testing.T, w *Wheel) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(w.Data), int64(len(w.Data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(Package + "/" + BundleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var b Bundle
	if err := json.NewDecoder(rc).Decode(&b); err != nil {
		t.Fatal(err)
	}
	b.Toolchain = ""
	for i := range b.Kernels {
		b.Kernels[i].SHA256 = ""
	}
	for i := range b.Elementwise {
		b.Elementwise[i].SHA256 = ""
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestWheelContentsGolden builds the sm_90a bf16 wheel twice: the bytes
// are the same, every member is checked against RECORD, and the listing
// matches the golden, so a change of the templates, the measured table,
// the heuristic or swigen_rt shows here; -update rewrites it.
func TestWheelContentsGolden(t *testing.T) {
	tc := realToolchain(t)
	o := Options{Arches: []tiling.Arch{tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}, Toolchain: tc}
	w, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Data, again.Data) {
		t.Errorf("two builds of the same wheel differ (%d and %d bytes)", len(w.Data), len(again.Data))
	}
	checkRecord(t, w.Data)
	got := contents(t, w)
	if *update {
		if err := os.WriteFile(contentsGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(contentsGolden)
	if err != nil {
		t.Fatalf("read golden (go test ./gen/wheel -run ContentsGolden -update writes it): %v", err)
	}
	if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("%s is stale: the wheel's files changed (templates, measured table, heuristic or swigen_rt); if that is meant, rerun go test ./gen/wheel -run ContentsGolden -update (-golden +now):\n%s", contentsGolden, d)
	}
}

// checkRecord checks a wheel's zip: every member at the fixed time, in
// RECORD with its sha256 and size, RECORD listing every member.
func checkRecord(t *testing.T, data []byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	members := map[string][]byte{}
	var record string
	for _, f := range zr.File {
		if !f.Modified.Equal(epoch) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, epoch)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		members[f.Name] = b
		if strings.HasSuffix(f.Name, ".dist-info/RECORD") {
			record = string(b)
		}
	}
	lines := strings.Split(strings.TrimSuffix(record, "\n"), "\n")
	if len(lines) != len(members) {
		t.Fatalf("RECORD has %d lines, the zip %d members", len(lines), len(members))
	}
	for _, l := range lines {
		parts := strings.Split(l, ",")
		if len(parts) != 3 {
			t.Fatalf("RECORD line %q", l)
		}
		b, ok := members[parts[0]]
		if !ok {
			t.Errorf("RECORD lists %s, not in the zip", parts[0])
			continue
		}
		if strings.HasSuffix(parts[0], "/RECORD") {
			continue
		}
		sum := sha256.Sum256(b)
		if want := fmt.Sprintf("sha256=%s", base64.RawURLEncoding.EncodeToString(sum[:])); parts[1] != want || parts[2] != fmt.Sprint(len(b)) {
			t.Errorf("RECORD %s: %s,%s, the member %s,%d", parts[0], parts[1], parts[2], want, len(b))
		}
	}
}

// TestZipWheel checks the zip layout without a compiler: the name from
// the version, dist-info last, RECORD last of all, fixed times.
func TestZipWheel(t *testing.T) {
	files := []gen.OutputFile{
		{Name: "swigen_kernels/__init__.py", Data: []byte("__version__ = \"1.2.3\"\n")},
		{Name: "swigen_rt/__init__.py", Data: []byte("x = 1\n")},
	}
	name, data, listing, err := zipWheel(files)
	if err != nil {
		t.Fatal(err)
	}
	if name != "swigen_kernels-1.2.3-py3-none-any.whl" {
		t.Errorf("name %s", name)
	}
	var names []string
	for _, f := range listing {
		names = append(names, f.Name)
	}
	want := []string{"swigen_kernels/__init__.py", "swigen_rt/__init__.py", "swigen_kernels-1.2.3.dist-info/METADATA",
		"swigen_kernels-1.2.3.dist-info/WHEEL", "swigen_kernels-1.2.3.dist-info/top_level.txt", "swigen_kernels-1.2.3.dist-info/RECORD"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	checkRecord(t, data)
	if _, _, _, err := zipWheel(files[1:]); err == nil {
		t.Error("no version: want an error")
	}
	if !epoch.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("epoch moved")
	}
}

// groupedOpKinds are the grouped kinds with a PyTorch op variant: the ones
// a wheel can ship.
func groupedOpKinds() []tiling.Kernel {
	var ks []tiling.Kernel
	for _, k := range tiling.GroupedKernels() {
		if slices.ContainsFunc(tiling.OpVariants(), func(v tiling.OpVariant) bool { return v.Kernel == k }) {
			ks = append(ks, k)
		}
	}
	return ks
}

// TestCheck checks the usage errors come before any work.
func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{DTypes: []tiling.DType{tiling.BF16}}, "no arch"},
		{Options{Arches: []tiling.Arch{tiling.ArchSM90a}}, "no dtype"},
		{Options{Arches: []tiling.Arch{tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}, Kernels: []tiling.Kernel{"nope"}}, "not a kind"},
		// Every grouped kind has sm_100a code too: nothing for checkGrouped
		// to refuse.
		{Options{Arches: []tiling.Arch{tiling.ArchSM100a}, DTypes: []tiling.DType{tiling.BF16}, Kernels: []tiling.Kernel{tiling.KernelMoEBwdDSwiGLU}}, ""},
		{Options{Arches: []tiling.Arch{tiling.ArchSM100a}, DTypes: []tiling.DType{tiling.BF16, tiling.FP16}, Kernels: []tiling.Kernel{tiling.KernelGEMM, tiling.KernelMoEBwdDSwiGLU}}, ""},
		// A grouped kind ships where it has code; the other arches get a note.
		{Options{Arches: []tiling.Arch{tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}, Kernels: groupedOpKinds()}, ""},
		{Options{Arches: []tiling.Arch{tiling.ArchSM100a, tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}, Kernels: groupedOpKinds()}, ""},
		// Every grouped kind has a PyTorch op (moe_gemm's is swigen::moe_down, moe_wgrad's swigen::moe_wgrad).
		{Options{Arches: []tiling.Arch{tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}, Kernels: tiling.GroupedKernels()}, ""},
		{Options{Arches: []tiling.Arch{tiling.ArchSM100a}, DTypes: []tiling.DType{tiling.BF16}, Kernels: []tiling.Kernel{tiling.KernelMoEGEMM}}, "no kernel of it on --arch sm_100a"},
		{Options{Arches: []tiling.Arch{tiling.ArchSM100a}, DTypes: []tiling.DType{tiling.BF16}}, ""},
	} {
		err := Check(tt.o)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want %q", tt.o, err, tt.want)
		}
	}
	if _, err := Build(context.Background(), Options{Arches: []tiling.Arch{tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}}); err == nil {
		t.Error("Build without a toolchain: want an error")
	}
}

// TestRuntimeVerbatim checks the wheel's swigen_rt is python/swigen_rt,
// file for file, byte for byte.
func TestRuntimeVerbatim(t *testing.T) {
	files, version, err := runtimeFiles()
	if err != nil {
		t.Fatal(err)
	}
	if version == "" {
		t.Error("no version")
	}
	disk, err := filepath.Glob(filepath.Join("..", "..", "python", "swigen_rt", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(disk)+1 { // + py.typed
		t.Errorf("%d runtime files, python/swigen_rt has %d .py files and py.typed", len(files), len(disk))
	}
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join("..", "..", "python", filepath.FromSlash(f.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, f.Data) {
			t.Errorf("%s differs from python/%s", f.Name, f.Name)
		}
	}
}

// TestSelectionsHold checks that a kind with a WheelHold ships only when
// --kernel names it, and that the default wheel's notes say why.
func TestSelectionsHold(t *testing.T) {
	o := Options{Arches: []tiling.Arch{tiling.ArchSM90a}, DTypes: []tiling.DType{tiling.BF16}}
	has := func(sel *tiling.SelectionTable, k tiling.Kernel) bool {
		return slices.ContainsFunc(sel.Selection, func(s tiling.Selection) bool { return s.Kernel == k })
	}
	for _, k := range tiling.GroupedKernels() {
		sel, err := selections(o)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := has(sel, k), k.WheelHold() == ""; got != want {
			t.Errorf("default wheel ships %s: %v, want %v (hold %q)", k, got, want, k.WheelHold())
		}
		if k.WheelHold() != "" && !slices.ContainsFunc(skipNotes(sel), func(n string) bool { return strings.Contains(n, string(k)) && strings.Contains(n, k.WheelHold()) }) {
			t.Errorf("default wheel's notes %q: want %s's hold", skipNotes(sel), k)
		}
		asked := o
		asked.Kernels = []tiling.Kernel{k}
		if sel, err = selections(asked); err != nil || !has(sel, k) {
			t.Errorf("--kernel %s: ships it %v, err %v; want it shipped", k, sel != nil && has(sel, k), err)
		}
	}
}
