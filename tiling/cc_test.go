package tiling

import "testing"

func TestArchForCC(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		major, minor int
		want         Arch
		ok           bool
	}{
		{9, 0, ArchSM90a, true},
		{10, 0, ArchSM100a, true},
		{8, 0, "", false},
		{9, 1, "", false},
		{10, 3, "", false}, // B300: arch-specific sm_100a cubins do not run there
		{12, 0, "", false},
	} {
		got, ok := ArchForCC(tt.major, tt.minor)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ArchForCC(%d, %d) = %q, %v; want %q, %v", tt.major, tt.minor, got, ok, tt.want, tt.ok)
		}
	}
}
