package gen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/internal/readfile"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// seedShape is the seed's S1 problem (M, K, I).
const seedShape = "16384,768,4608"

func heuristicConfigs(t *testing.T) []tiling.Config {
	t.Helper()
	shape, err := tiling.ParseShape(seedShape)
	if err != nil {
		t.Fatalf("ParseShape(%q): %v", seedShape, err)
	}
	var cfgs []tiling.Config
	// Deliberately not in name order: Emit must sort.
	for _, a := range []tiling.Arch{tiling.ArchSM100a, tiling.ArchSM90a} {
		c, err := tiling.Heuristic(tiling.KernelBwdDSwiGLU, a, tiling.BF16, shape)
		if err != nil {
			t.Fatalf("Heuristic(%s): %v", a, err)
		}
		// The emit mechanics do not depend on the arch; leave out a target
		// whose template is not written yet, and say so.
		if _, err := renderCfg(c); err != nil && strings.Contains(err.Error(), "not implemented") {
			t.Logf("leaving out %s: %v", c.Name(), err)
			continue
		}
		cfgs = append(cfgs, c)
	}
	if len(cfgs) == 0 {
		t.Skip("no heuristic config renders yet")
	}
	return cfgs
}

// dirFiles returns the names and bytes of the files in dir.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

func statuses(r *EmitResult) map[string]FileStatus {
	m := map[string]FileStatus{}
	for _, f := range r.Files {
		m[filepath.Base(f.Path)] = f.Status
	}
	return m
}

func TestEmitSourcesOnly(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir})
	if err != nil {
		t.Fatalf("Emit: %v", err)
	}
	var names []string
	for _, c := range cfgs {
		names = append(names, c.Name())
	}
	slices.Sort(names)
	want := map[string]FileStatus{IndexFile: FileWritten}
	for _, n := range names {
		want[n+".cu"] = FileWritten
		want[n+".json"] = FileWritten
	}
	for _, n := range libraryNames(t, res.Kernels) {
		want[n] = FileWritten
	}
	if diff := cmp.Diff(want, statuses(res)); diff != "" {
		t.Errorf("file statuses (-want +got):\n%s", diff)
	}
	var gotNames []string
	for _, k := range res.Kernels {
		gotNames = append(gotNames, k.Artifact.Name)
		if k.Build != nil {
			t.Errorf("%s: Build = %+v without a toolchain", k.Artifact.Name, k.Build)
		}
	}
	if diff := cmp.Diff(names, gotNames); diff != "" {
		t.Errorf("kernel order (-want +got):\n%s", diff)
	}

	files := dirFiles(t, dir)
	if len(files) != len(want) {
		t.Errorf("dir holds %d files, want %d (no temp files left behind)", len(files), len(want))
	}
	var idx Index
	if err := json.Unmarshal(files[IndexFile], &idx); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	var idxNames []string
	for _, e := range idx.Kernels {
		idxNames = append(idxNames, e.Name)
		if e.Cubin != "" || e.Report != "" {
			t.Errorf("%s: index names a cubin/report without a toolchain: %+v", e.Name, e)
		}
		if _, ok := files[e.Source]; !ok {
			t.Errorf("%s: index source %q not written", e.Name, e.Source)
		}
	}
	if diff := cmp.Diff(names, idxNames); diff != "" {
		t.Errorf("index order (-want +got):\n%s", diff)
	}
	for _, n := range names {
		m := files[n+".json"]
		if !bytes.HasSuffix(m, []byte("}\n")) || !bytes.Contains(m, []byte("\n  \"")) {
			t.Errorf("%s.json is not indented JSON with a trailing newline:\n%s", n, m)
		}
		var man manifest.Manifest
		if err := json.Unmarshal(m, &man); err != nil {
			t.Errorf("%s.json: %v", n, err)
		} else if man.Name != n {
			t.Errorf("%s.json: name %q", n, man.Name)
		}
	}
}

func TestEmitAllOrNothing(t *testing.T) {
	t.Parallel()
	good := heuristicConfigs(t)
	bad1 := good[0]
	bad1.Stages = 0
	bad2 := good[len(good)-1]
	bad2.TileK = 3
	for _, tt := range []struct {
		name string
		cfgs []tiling.Config
		bad  []tiling.Config
	}{
		{"one invalid", append([]tiling.Config{bad1}, good...), []tiling.Config{bad1}},
		{"two invalid", []tiling.Config{bad2, good[0], bad1}, []tiling.Config{bad1, bad2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "out")
			res, err := Emit(context.Background(), tt.cfgs, EmitOptions{Dir: dir})
			if err == nil {
				t.Fatalf("Emit succeeded (%d files), want error", len(res.Files))
			}
			for _, b := range tt.bad {
				if !strings.Contains(err.Error(), b.Name()) {
					t.Errorf("error does not name failing config %s:\n%v", b.Name(), err)
				}
			}
			var ve *tiling.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("error %v does not wrap *tiling.ValidationError", err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("output dir exists after a failed emit (stat err %v)", err)
			}
		})
	}
}

func TestEmitUnchangedSkip(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	dir := t.TempDir()
	if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	// Backdate every file so a rewrite would be visible in the mtime.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for name := range dirFiles(t, dir) {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	// Damage one file: only it must be rewritten.
	victim := cfgs[0].Name() + ".cu"
	if err := os.WriteFile(filepath.Join(dir, victim), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, victim), old, old); err != nil {
		t.Fatal(err)
	}

	res, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		want := FileUnchanged
		if filepath.Base(f.Path) == victim {
			want = FileWritten
		}
		if f.Status != want {
			t.Errorf("%s: status %s, want %s", f.Path, f.Status, want)
		}
		fi, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if touched := !fi.ModTime().Equal(old); touched != (want == FileWritten) {
			t.Errorf("%s: mtime %v (old %v), status %s", f.Path, fi.ModTime(), old, f.Status)
		}
	}
}

func TestEmitDeterministic(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	rev := slices.Clone(cfgs)
	slices.Reverse(rev)
	d1, d2 := t.TempDir(), t.TempDir()
	if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: d1}); err != nil {
		t.Fatal(err)
	}
	// Input order and duplicates must not change the output.
	if _, err := Emit(context.Background(), append(rev, cfgs...), EmitOptions{Dir: d2}); err != nil {
		t.Fatal(err)
	}
	a, b := dirFiles(t, d1), dirFiles(t, d2)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two emits differ (-first +second):\n%s", diff)
	}
}

func TestEmitEmptyDir(t *testing.T) {
	t.Parallel()
	if _, err := Emit(context.Background(), heuristicConfigs(t), EmitOptions{}); err == nil {
		t.Fatal("Emit with empty Dir succeeded")
	}
}

// TestEmitCompile needs the CUDA compiler; it is skipped without one.
func TestEmitCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with nvcc; skipped in -short mode")
	}
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if errors.Is(err, toolchain.ErrNoCompiler) {
		t.Skipf("no CUDA compiler: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	cfgs := heuristicConfigs(t)
	dir := t.TempDir()
	var progress bytes.Buffer
	res, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir, Toolchain: tc, Progress: &progress})
	if err != nil {
		t.Fatalf("Emit: %v", err)
	}
	files := dirFiles(t, dir)
	for _, k := range res.Kernels {
		a := k.Artifact
		if k.Build == nil || len(k.Build.Cubin) == 0 {
			t.Errorf("%s: no cubin", a.Name)
			continue
		}
		cubin := a.Name + "." + string(a.Config.Arch) + ".cubin"
		if !bytes.Equal(files[cubin], k.Build.Cubin) {
			t.Errorf("%s: not written or differs from the build", cubin)
		}
		if _, ok := files[a.Name+".report.json"]; !ok {
			t.Errorf("%s.report.json not written", a.Name)
		}
	}
	if !strings.Contains(progress.String(), "compiled ") {
		t.Errorf("progress has no compile lines:\n%s", progress.String())
	}
}

// TestEmitExtraFiles checks that an ExtraFiles hook cannot escape the
// output directory or clobber a kernel's file, and that its error writes
// nothing.
func TestEmitExtraFiles(t *testing.T) {
	t.Parallel()
	c := heuristicConfigs(t)[0]
	for _, tt := range []struct {
		name  string
		files []OutputFile
		err   error
		want  string
	}{
		{"escapes", []OutputFile{{Name: "../x.go"}}, nil, "plain file name"},
		{"clobbers the index", []OutputFile{{Name: IndexFile}}, nil, "laid out twice"},
		{"clobbers a source", []OutputFile{{Name: c.Name() + ".cu"}}, nil, "laid out twice"},
		{"fails", nil, errors.New("no bindings today"), "no bindings today"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, err := Emit(context.Background(), []tiling.Config{c}, EmitOptions{Dir: dir,
				ExtraFiles: func(Index, []EmittedKernel) ([]OutputFile, error) { return tt.files, tt.err }})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Emit = %v, want an error containing %q", err, tt.want)
			}
			assertEmptyDir(t, dir)
		})
	}
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("%s was written", e.Name())
	}
}

// TestEmitIndexRecords checks the index records EmitOptions.Command as
// given and every other file of the emit, sorted, with its sha256.
func TestEmitIndexRecords(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	dir := t.TempDir()
	command := []string{"swigen", "emit", "--arch=sm_90a", "--out=."}
	extra := func(Index, []EmittedKernel) ([]OutputFile, error) {
		return []OutputFile{{Name: "a_bindings.go", Data: []byte("package a\n")}}, nil
	}
	if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir, Command: command, ExtraFiles: extra}); err != nil {
		t.Fatal(err)
	}
	files := dirFiles(t, dir)
	idx, err := ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(command, idx.Command); diff != "" {
		t.Errorf("recorded command (-want +got):\n%s", diff)
	}
	var want []IndexedFile
	for name, data := range files {
		if name != IndexFile {
			sum := sha256.Sum256(data)
			want = append(want, IndexedFile{Name: name, SHA256: hex.EncodeToString(sum[:])})
		}
	}
	slices.SortFunc(want, func(a, b IndexedFile) int { return strings.Compare(a.Name, b.Name) })
	if diff := cmp.Diff(want, idx.Files); diff != "" {
		t.Errorf("recorded files (-want +got):\n%s", diff)
	}
}

// TestEmitRemovesLeftovers: a re-emit into a directory removes the files
// the previous emit wrote that it does not (a kernel dropped, as when
// --arch changes), keeps one edited since, and never touches a file no
// emit wrote. DryRun reports the same and removes nothing.
func TestEmitRemovesLeftovers(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	if len(cfgs) < 2 {
		t.Skip("needs two configs that render")
	}
	keep, drop := cfgs[0], cfgs[1]
	for _, edit := range []bool{false, true} {
		dir := t.TempDir()
		first, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		emitted := first.Kernels
		user := map[string]string{"gen.go": "package kernels\n", drop.Name() + ".txt": "mine\n"}
		for name, data := range user {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		edited := drop.Name() + ".cu"
		if edit {
			if err := os.WriteFile(filepath.Join(dir, edited), []byte("// mine now\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		wantRemoved := []string{drop.Name() + ".cu", drop.Name() + ".json"}
		var wantKept []string
		if edit {
			wantRemoved, wantKept = wantRemoved[1:], []string{edited}
		}
		// The thin unit dropped was the only one: the library goes with it.
		wantRemoved = append(wantRemoved, libraryNames(t, emitted)...)

		before := dirFiles(t, dir)
		dry, err := Emit(context.Background(), []tiling.Config{keep}, EmitOptions{Dir: dir, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantRemoved, dry.Removed); diff != "" {
			t.Errorf("edit %v: DryRun Removed (-want +got):\n%s", edit, diff)
		}
		if diff := cmp.Diff(wantKept, dry.Kept); diff != "" {
			t.Errorf("edit %v: DryRun Kept (-want +got):\n%s", edit, diff)
		}
		if diff := cmp.Diff(before, dirFiles(t, dir)); diff != "" {
			t.Errorf("edit %v: DryRun changed the directory (-before +after):\n%s", edit, diff)
		}

		res, err := Emit(context.Background(), []tiling.Config{keep}, EmitOptions{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantRemoved, res.Removed); diff != "" {
			t.Errorf("edit %v: Removed (-want +got):\n%s", edit, diff)
		}
		if diff := cmp.Diff(wantKept, res.Kept); diff != "" {
			t.Errorf("edit %v: Kept (-want +got):\n%s", edit, diff)
		}
		want := map[string]bool{IndexFile: true, keep.Name() + ".cu": true, keep.Name() + ".json": true}
		for name := range user {
			want[name] = true
		}
		for _, k := range wantKept {
			want[k] = true
		}
		got := map[string]bool{}
		for name := range dirFiles(t, dir) {
			got[name] = true
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("edit %v: directory after the re-emit (-want +got):\n%s", edit, diff)
		}
		for name, data := range user {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != data {
				t.Errorf("edit %v: %s changed: %q", edit, name, b)
			}
		}
	}
}

// TestEmitLeftoversRollback makes the write fail after the previous
// emit's files were taken out: they must all be back, bytes and mtime.
func TestEmitLeftoversRollback(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	if len(cfgs) < 2 {
		t.Skip("needs two configs that render")
	}
	// Renames 1 and 2 take the dropped kernel's two files out; 3 backs up
	// the changed index (the kept kernel's files are unchanged), 4 puts
	// the new index in.
	for _, n := range []int{2, 3, 4} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "out")
			if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir}); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root)
			_, err := Emit(context.Background(), cfgs[:1], EmitOptions{Dir: dir, fs: &faultFS{op: "Rename", n: n}})
			if !errors.Is(err, errInjected) {
				t.Fatalf("Emit = %v, want the injected failure", err)
			}
			if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
				t.Errorf("tree after the failed emit (-before +after):\n%s", diff)
			}
		})
	}
}

// TestEmitLeftoversStayInside: an index naming paths outside the
// directory, a staging directory, a directory or a link makes emit
// remove none of them.
func TestEmitLeftoversStayInside(t *testing.T) {
	t.Parallel()
	cfgs := heuristicConfigs(t)
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	if _, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(root, "outside.txt")
	mustWrite := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(outside, "x")
	mustWrite(filepath.Join(dir, "sub", "f.txt"), "x")
	mustWrite(filepath.Join(dir, stagePrefix+"old", "f.txt"), "x")
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("x"))
	h := hex.EncodeToString(sum[:])
	idx := Index{Kernels: []IndexEntry{}}
	for _, name := range []string{"../outside.txt", "sub/f.txt", "sub", stagePrefix + "old", "link.txt", IndexFile, "", ".", ".."} {
		idx.Files = append(idx.Files, IndexedFile{Name: name, SHA256: h})
	}
	data, err := marshalJSON(idx)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(filepath.Join(dir, IndexFile), string(data))
	before := snapshot(t, root)
	res, err := Emit(context.Background(), cfgs, EmitOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed)+len(res.Kept) > 0 {
		t.Errorf("Removed %q, Kept %q; want none", res.Removed, res.Kept)
	}
	after := snapshot(t, root)
	delete(before, filepath.Join("out", IndexFile))
	delete(after, filepath.Join("out", IndexFile))
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("tree (-before +after), the index aside:\n%s", diff)
	}
}

// TestEmitThinUnitLibrary: an emit whose kernels include a thin unit writes
// the CUDA library beside the sources, once, byte for byte as embedded, so
// the emitted .cu compiles where it lies; an emit of whole kernels alone
// writes none of it.
func TestEmitThinUnitLibrary(t *testing.T) {
	t.Parallel()
	thin, err := tiling.ParseName("gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := tiling.ParseName("gemm_sm100a_bf16_m128n256k64_s4_c1x1_1cta")
	if err != nil {
		t.Fatal(err)
	}
	lib := map[string]string{}
	err = fs.WalkDir(templates.Include(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templates.Include(), p)
		lib[p] = string(b)
		return err
	})
	if err != nil || len(lib) == 0 {
		t.Fatalf("the embedded library: %d files, %v", len(lib), err)
	}
	for _, tc := range []struct {
		name string
		cfgs []tiling.Config
		want map[string]string
	}{
		{"thin and whole", []tiling.Config{thin, whole}, lib},
		{"whole only", []tiling.Config{whole}, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if _, err := Emit(context.Background(), tc.cfgs, EmitOptions{Dir: dir}); err != nil {
				t.Fatalf("Emit: %v", err)
			}
			got := map[string]string{}
			for name := range lib {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
					got[name] = string(b)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("library files in the output (-want +got):\n%s", d)
			}
		})
	}
}

// libraryNames are the CUDA library's file names, sorted, that an emit of
// kernels writes beside its thin units (none when no kernel is one), read
// from the rendered artifacts' include trees.
func libraryNames(t *testing.T, kernels []EmittedKernel) []string {
	t.Helper()
	var names []string
	for _, k := range kernels {
		if k.Artifact.Include == nil {
			continue
		}
		tree, err := readfile.Tree(k.Artifact.Include)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tree {
			names = append(names, f.Path)
		}
		break
	}
	slices.Sort(names)
	return names
}
