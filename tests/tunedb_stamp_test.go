package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/templates"
	"github.com/swigen/swigen/tiling"
)

// tunedSourcesGolden pins the rendered source of every config measured
// in the shipped results DBs (bench/results/tune) that carry the golden's
// templates hash.
const tunedSourcesGolden = "testdata/tuned_sources.json"

// tunedSources is tunedSourcesGolden: the templates hash the DBs were
// stamped with, and the sha256 of each of their configs' .cu.
type tunedSources struct {
	Templates string            `json:"templates"`
	Sources   map[string]string `json:"sources"`
}

// shippedDB is what this test reads of a results DB: each entry's
// templates hash and the configs it measured.
type shippedDB struct {
	Format  string `json:"format"`
	Entries []struct {
		Key struct {
			Templates string `json:"templates"`
		} `json:"key"`
		Results []struct {
			Config string `json:"config"`
		} `json:"results"`
	} `json:"entries"`
}

// TestShippedTuneDBsStamp keeps the shipped results DBs' templates stamp
// honest. emit --tuned warns about a winner "tuned with other templates"
// when its entry's hash is not the current templates' (templates.Hash,
// over every template file), which a template edit that moves no code (a
// comment, a refactoring) trips for every DB. So: the DBs stamped with the
// golden's hash must render, config by config, the sources the golden
// pins; when the templates changed and those sources did not, the DBs
// measured the code emit renders now and
//
//	go test ./tests -run ShippedTuneDBsStamp -update
//
// re-stamps them with the current hash. A DB one of whose configs renders
// other code now keeps its old stamp (its warning is right) and leaves the
// golden.
func TestShippedTuneDBsStamp(t *testing.T) {
	cur, err := templates.Hash()
	if err != nil {
		t.Fatal(err)
	}
	var g tunedSources
	if b, err := os.ReadFile(tunedSourcesGolden); err != nil || json.Unmarshal(b, &g) != nil {
		t.Fatalf("read %s: %v", tunedSourcesGolden, err)
	}
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "bench", "results", "tune", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	next := tunedSources{Templates: cur, Sources: map[string]string{}}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var db shippedDB
		if err := json.Unmarshal(raw, &db); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if db.Format != "swigen-tune-v1" {
			continue // index.json: what each DB is
		}
		f = strings.TrimPrefix(f, repoRoot(t)+string(filepath.Separator))
		stamp, names := dbStamp(t, f, db)
		if stamp != g.Templates && stamp != cur {
			continue // tuned with older code, and says so
		}
		var changed []string
		for _, n := range names {
			if sourceSHA(t, n) != g.Sources[n] {
				changed = append(changed, n)
			}
		}
		switch {
		case len(changed) > 0 && stamp == cur && g.Templates == cur:
			t.Errorf("%s: %d configs render other sources than %s pins (%v...) with the same templates: rerun with -update only if the DB was re-tuned", f, len(changed), tunedSourcesGolden, changed[0])
		case len(changed) > 0:
			t.Logf("%s measured other code than the templates render now (%d configs, %s first): its stamp stays, emit --tuned warns", f, len(changed), changed[0])
		case stamp != cur && !*update:
			t.Errorf("%s: stamped with templates %.12s, now %.12s, and every config it measured renders the same source: re-stamp with go test ./tests -run ShippedTuneDBsStamp -update", f, stamp, cur)
		default:
			for _, n := range names {
				next.Sources[n] = g.Sources[n]
			}
			if stamp != cur {
				raw = bytes.ReplaceAll(raw, []byte(`"templates": "`+stamp+`"`), []byte(`"templates": "`+cur+`"`))
				if err := os.WriteFile(filepath.Join(repoRoot(t), f), raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if *update {
		b, err := json.MarshalIndent(next, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tunedSourcesGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if diff := cmp.Diff(g, next); g.Templates == cur && diff != "" {
		t.Errorf("%s is not the sources of the DBs stamped with the current templates (-golden +now):\n%s", tunedSourcesGolden, diff)
	}
}

// dbStamp returns the one templates hash of db's entries (a DB with two
// is an error) and the configs it measured, sorted.
func dbStamp(t *testing.T, name string, db shippedDB) (string, []string) {
	t.Helper()
	var stamps, names []string
	for _, e := range db.Entries {
		if !slices.Contains(stamps, e.Key.Templates) {
			stamps = append(stamps, e.Key.Templates)
		}
		for _, r := range e.Results {
			if !slices.Contains(names, r.Config) {
				names = append(names, r.Config)
			}
		}
	}
	if len(stamps) != 1 {
		t.Fatalf("%s: %d templates hashes (%s), want one", name, len(stamps), strings.Join(stamps, ", "))
	}
	slices.Sort(names)
	return stamps[0], names
}

// sourceSHA is the sha256 of the .cu emit renders for the config named n.
func sourceSHA(t *testing.T, n string) string {
	t.Helper()
	c, err := tiling.ParseName(n)
	if err != nil {
		t.Fatalf("%s: %v", n, err)
	}
	sum := sha256.Sum256(render(t, c).Source)
	return hex.EncodeToString(sum[:])
}
