package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/swigen/swigen/lab/tune"
	"github.com/swigen/swigen/tiling"
)

// TestCorruptTuneDB checks that a path that does not hold a results DB
// (a file that is not one, a DB with a record no tuner writes, a
// directory) is bad input (exit 2) for every command that reads one, that
// the error names it and what is wrong, and that nothing is written.
func TestCorruptTuneDB(t *testing.T) {
	t.Parallel()
	good, _ := writeTunedDB(t, tiling.Shape{M: 16384, K: 768, I: 4608})
	mutated := func(f func(db *tune.DB)) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			db, err := tune.LoadDB(good)
			if err != nil {
				t.Fatal(err)
			}
			f(db)
			if err := db.WriteFile(path); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, bad := range []struct {
		name   string
		create func(t *testing.T, path string)
		want   []string // in the error, besides the path and ErrInvalidDB
	}{
		{"torn", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(`{"format":"swigen-tune-v1","entries":[`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"unexpected end of JSON input"}},
		{"negative time", mutated(func(db *tune.DB) { db.Entries[0].Results[0].US = -3 }), []string{"entry 0 (bwd_dswiglu|sm_90a|bf16|16384,768,4608|", "): result 0 (bwd_dswiglu_sm90a_bf16_", "): status ok with us -3"}},
		{"impossible shape", mutated(func(db *tune.DB) { db.Entries[0].Key.Shape = tiling.Shape{M: -5, K: 0, I: 8} }), []string{"entry 0 (bwd_dswiglu|sm_90a|bf16|-5,0,8|", "M=-5: must be a positive integer"}},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"is a directory, want a results DB file"}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			t.Parallel()
			badPath := filepath.Join(t.TempDir(), "bad.json")
			bad.create(t, badPath)
			for _, tt := range []struct {
				name string
				args func(out string) []string
			}{
				{"emit --tuned", func(out string) []string {
					return []string{"emit", "--tuned", badPath, "--arch", "sm_90a", "--no-compile", "-o", out}
				}},
				{"diff --tuned", func(out string) []string {
					return []string{"diff", "--tuned", badPath, "--arch", "sm_90a", "--no-compile", "-o", out}
				}},
				{"tune merge input", func(out string) []string {
					return []string{"tune", "merge", good, badPath, "-o", filepath.Join(out, "merged.json")}
				}},
				{"tune merge output", func(string) []string { return []string{"tune", "merge", good, "-o", badPath} }},
				{"tune table", func(out string) []string { return []string{"tune", "table", badPath, "-o", out} }},
			} {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					before, _ := os.ReadFile(badPath)
					out := filepath.Join(t.TempDir(), "out")
					code, _, errOut := runCLI(t, tt.args(out)...)
					if code != exitUsage || !mentionsAll(errOut, append([]string{badPath, tune.ErrInvalidDB.Error()}, bad.want...)) {
						t.Errorf("exit %d, want %d naming %s with %q; stderr:\n%s", code, exitUsage, badPath, bad.want, errOut)
					}
					if after, _ := os.ReadFile(badPath); string(after) != string(before) {
						t.Error("the bad DB was changed")
					}
					if _, err := os.Stat(out); !os.IsNotExist(err) {
						t.Errorf("output created (stat: %v)", err)
					}
				})
			}
			t.Run("tune --db", func(t *testing.T) {
				t.Parallel()
				o, err := parseTune(t, "--db", badPath)
				if err != nil {
					t.Fatal(err)
				}
				var runs []string
				err = runTune(context.Background(), &env{stdout: io.Discard, stderr: io.Discard}, o, fakeTuneDeps(t, "", &runs))
				if exitCode(err) != exitUsage || err == nil || !mentionsAll(err.Error(), append([]string{badPath}, bad.want...)) || len(runs) > 0 {
					t.Errorf("err %v (exit %d), %d runs; want exit 2 naming %s with %q before any run", err, exitCode(err), len(runs), badPath, bad.want)
				}
			})
		})
	}
}

// mentionsAll reports whether s contains every one of subs.
func mentionsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestTuneMergeInvalidWritesNothing: tune merge checks every input before
// it writes, so one invalid input leaves the output as it was (or absent)
// and its directory without a temporary file.
func TestTuneMergeInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	shape := tiling.Shape{M: 16384, K: 768, I: 4608}
	good, _ := writeTunedDB(t, shape)
	other, _ := writeTunedDB(t, shape)
	db, err := tune.LoadDB(good)
	if err != nil {
		t.Fatal(err)
	}
	db.Entries[0].Results[0].US = -3
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := db.WriteFile(bad); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		inputs   func(out string) []string
		existing bool // the output exists before the merge
	}{
		{"invalid last, output exists", func(string) []string { return []string{good, other, bad} }, true},
		{"invalid first, output exists", func(string) []string { return []string{bad, good} }, true},
		{"output is an input", func(out string) []string { return []string{out, bad} }, true},
		{"output missing", func(string) []string { return []string{good, bad} }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "merged.json")
			var before []byte
			if tt.existing {
				var err error
				if before, err = os.ReadFile(other); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(out, before, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append(append([]string{"tune", "merge"}, tt.inputs(out)...), "-o", out)
			code, stdout, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "status ok with us -3") {
				t.Errorf("exit %d, want %d naming %s and its bad record; stderr:\n%s", code, exitUsage, bad, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			after, err := os.ReadFile(out)
			switch {
			case !tt.existing && !os.IsNotExist(err):
				t.Errorf("output created (read: %v)", err)
			case tt.existing && (err != nil || string(after) != string(before)):
				t.Errorf("output changed (read: %v)", err)
			}
			var names []string
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				names = append(names, e.Name())
			}
			var want []string
			if tt.existing {
				want = []string{"merged.json"}
			}
			if diff := cmp.Diff(want, names, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("files in the output's directory (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTunedMissing: emit --tuned naming no file is a bad argument, as a
// missing tune merge input is.
func TestTunedMissing(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, args := range [][]string{
		{"emit", "--tuned", missing, "--arch", "sm_90a", "--no-compile", "-o", t.TempDir()},
		{"tune", "merge", missing, "-o", filepath.Join(t.TempDir(), "out.json")},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, missing) {
			t.Errorf("%v: exit %d, want %d naming %s; stderr:\n%s", args, code, exitUsage, missing, stderr)
		}
	}
}

// TestReadOnlyCreatesNoFiles checks that commands that only read a DB
// leave no lock file (or anything else) beside it.
func TestReadOnlyCreatesNoFiles(t *testing.T) {
	t.Parallel()
	shape := tiling.Shape{M: 16384, K: 768, I: 4608}
	for _, tt := range []struct {
		name string
		args func(db, other, outDir string) []string
	}{
		{"emit --tuned", func(db, _, outDir string) []string {
			return []string{"emit", "--tuned", db, "--arch", "sm_90a", "--no-compile", "-o", outDir}
		}},
		{"diff --tuned", func(db, _, outDir string) []string {
			return []string{"diff", "--tuned", db, "--arch", "sm_90a", "--no-compile", "-o", outDir}
		}},
		{"tune merge inputs", func(db, other, outDir string) []string {
			return []string{"tune", "merge", db, other, "-o", filepath.Join(outDir, "merged.json")}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, _ := writeTunedDB(t, shape)
			other, _ := writeTunedDB(t, shape)
			outDir := t.TempDir()
			runCLI(t, tt.args(db, other, outDir)...)
			for _, p := range []string{db, other} {
				ents, err := os.ReadDir(filepath.Dir(p))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range ents {
					got = append(got, e.Name())
				}
				if diff := cmp.Diff([]string{filepath.Base(p)}, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("files beside %s (-want +got):\n%s", p, diff)
				}
			}
		})
	}
}
