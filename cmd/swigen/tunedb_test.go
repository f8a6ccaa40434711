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
	"github.com/swigen/swigen/runtime/tune"
	"github.com/swigen/swigen/tiling"
)

// TestCorruptTuneDB checks that a file that is not a results DB is bad
// input (exit 2) for every command that reads one, and that nothing is
// written.
func TestCorruptTuneDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"swigen-tune-v1","entries":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	good, _ := writeTunedDB(t, tiling.Shape{M: 16384, K: 768, I: 4608})
	out := filepath.Join(dir, "out")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"emit --tuned", []string{"emit", "--tuned", bad, "--arch", "sm_90a", "--no-compile", "-o", out}},
		{"diff --tuned", []string{"diff", "--tuned", bad, "--arch", "sm_90a", "--no-compile", "-o", out}},
		{"tune merge input", []string{"tune", "merge", good, bad, "-o", filepath.Join(out, "merged.json")}},
		{"tune merge output", []string{"tune", "merge", good, "-o", bad}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before, _ := os.ReadFile(bad)
			code, _, errOut := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(errOut, bad) || !strings.Contains(errOut, tune.ErrInvalidDB.Error()) {
				t.Errorf("exit %d, want %d naming %s; stderr:\n%s", code, exitUsage, bad, errOut)
			}
			if after, _ := os.ReadFile(bad); string(after) != string(before) {
				t.Error("the corrupt DB was changed")
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output created (stat: %v)", err)
			}
		})
	}
	t.Run("tune --db", func(t *testing.T) {
		t.Parallel()
		o, err := parseTune(t, "--db", bad)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		err = runTune(context.Background(), &env{stdout: io.Discard, stderr: io.Discard}, o, fakeTuneDeps(t, "", &runs))
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), bad) || len(runs) > 0 {
			t.Errorf("err %v (exit %d), %d runs; want exit 2 naming %s before any run", err, exitCode(err), len(runs), bad)
		}
	})
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
