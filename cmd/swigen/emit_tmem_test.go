package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// TestEmitTMEMCoResidency emits the sm_100a config of the audit's D1 (two
// CTAs fit on an SM by shared memory, each allocating all 512 TMEM
// columns): the kernel it writes must request enough dynamic shared memory
// that a second CTA cannot co-reside.
func TestEmitTMEMCoResidency(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runCLI(t, "emit", "--arch", "sm_100a", "--kernel", "gemm", "--tile", "128x192x64",
		"--stages", "2", "--epi-stages", "1", "--cluster", "2x1", "--schedule", "1cta", "--no-compile", "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	const name = "gemm_sm100a_bf16_m128n192k64_s2_c2x1_1cta_e128x64s1"
	data, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	lim, err := tiling.LimitsFor(tiling.ArchSM100a)
	if err != nil {
		t.Fatal(err)
	}
	foot := m.DynamicSmemBytes + lim.SmemReservedPerBlock
	if cols := m.Config.TMEMColumns(); cols != lim.TMEMColumns {
		t.Fatalf("%s allocates %d TMEM columns, want all %d", name, cols, lim.TMEMColumns)
	}
	if 2*foot <= lim.SmemPerSM {
		t.Errorf("%s requests %d bytes of dynamic shared memory: two CTAs (%d bytes with the reservation) fit in the %d of an SM", name, m.DynamicSmemBytes, 2*foot, lim.SmemPerSM)
	}
	if m.DynamicSmemBytes > lim.SmemPerBlock {
		t.Errorf("%s requests %d bytes, over the %d-byte block limit", name, m.DynamicSmemBytes, lim.SmemPerBlock)
	}
}
