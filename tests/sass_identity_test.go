package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sassGolden pins the SASS of every kernel TestCompileCatalog builds: a
// refactoring of the generator (templates, views, the launch contract) must
// leave the machine code of every shipped config unchanged, and one that
// changes it on purpose updates this file in the same commit, with the
// reason and a timing in the commit message. Regenerate with
//
//	SWIGEN_REQUIRE_COMPILER=1 go test ./tests -run CompileCatalog -update
const sassGolden = "testdata/sass_sha256.json"

// sassHashes collects the SASS hash of each compiled config.
type sassHashes struct {
	mu sync.Mutex
	m  map[string]string
}

// add records the hash of the normalized SASS of config name.
func (h *sassHashes) add(name, sass string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]string{}
	}
	h.m[name] = sassHash(sass)
}

// sassHash hashes cuobjdump -sass output with each line trimmed and blank
// lines dropped: what is left is the header, every instruction and its
// encoding, and nothing of the cubin's file name or debug sections.
func sassHash(sass string) string {
	var b strings.Builder
	for _, line := range strings.Split(sass, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// check compares the collected hashes with the golden file, or rewrites it
// under -update. It runs once every subtest is done, and only when all of
// the configs compiled: a -run that selects some subtests compares
// nothing (a failed compile says why itself).
func (h *sassHashes) check(t *testing.T, configs int) {
	t.Helper()
	if t.Failed() {
		return
	}
	if len(h.m) != configs {
		t.Logf("%d of %d configs compiled: %s not compared", len(h.m), configs, sassGolden)
		return
	}
	if *update {
		data, err := json.MarshalIndent(h.m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sassGolden, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(sassGolden)
	if err != nil {
		t.Fatalf("read %s (create it with -update): %v", sassGolden, err)
	}
	var want map[string]string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("parse %s: %v", sassGolden, err)
	}
	if d := cmp.Diff(want, h.m); d != "" {
		t.Errorf("SASS of compiled kernels differs from %s (-want +got):\n%s\n"+
			"A change that moves machine code must say which kernels and why; rerun with -update to accept.",
			sassGolden, d)
	}
}
