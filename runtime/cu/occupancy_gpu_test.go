//go:build gpu

package cu

import (
	"errors"
	"testing"
)

// TestGPUMaxActiveBlocksPerSM checks the occupancy binding against the
// shared-memory facts of package tiling (228 KiB per SM, 1 KiB reserved per
// CTA on sm_90 and sm_100): 256-thread CTAs of 99,456 bytes fit twice on an
// SM, of 115,840 bytes once. Then the entry point is unbound as on an old
// driver: the call must fail with ErrMissingSymbol, not panic.
func TestGPUMaxActiveBlocksPerSM(t *testing.T) {
	g := setupGPU(t)
	d, err := GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		attr DeviceAttribute
		want int
	}{{AttrMaxSharedMemoryPerSM, 233472}, {AttrReservedSharedMemoryPerBlock, 1024}} {
		if v, err := d.Attribute(a.attr); err != nil || v != a.want {
			t.Errorf("Attribute(%d) = %d, %v; want %d", a.attr, v, err, a.want)
		}
	}
	f := g.fn(t, "add_one")
	if err := f.SetMaxDynamicSharedMemory(200 << 10); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ smem, want int }{{0, 8}, {99456, 2}, {115840, 1}} {
		n, err := f.MaxActiveBlocksPerSM(256, tt.smem)
		if err != nil || n != tt.want {
			t.Errorf("MaxActiveBlocksPerSM(256, %d) = %d, %v; want %d", tt.smem, n, err, tt.want)
		}
	}
	saved := cuOccupancyMaxActiveBlocksPerMultiprocessor.addr
	cuOccupancyMaxActiveBlocksPerMultiprocessor.addr = 0
	_, err = f.MaxActiveBlocksPerSM(256, 0)
	cuOccupancyMaxActiveBlocksPerMultiprocessor.addr = saved
	if !errors.Is(err, ErrMissingSymbol) {
		t.Errorf("unbound entry point: %v, want ErrMissingSymbol", err)
	}
}
