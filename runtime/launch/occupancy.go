package launch

import (
	"errors"
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// ErrTMEMCoResidency is returned (wrapped) by Load for an sm_100a kernel of
// which more CTAs can share an SM than tensor memory holds allocations
// for: the extra CTAs would block in tcgen05.alloc, and with clusters two
// clusters' CTAs can wait for each other's partners forever.
var ErrTMEMCoResidency = errors.New("more co-resident CTAs than TMEM allocations")

// checkTMEMOccupancy asks the driver how many CTAs of fn, launched as man
// says, can be resident on one SM, and refuses an sm_100a kernel for which
// that is more than tensor memory holds (checkTMEMCoResidency). Other
// archs pass without a query.
func checkTMEMOccupancy(fn *cu.Function, man manifest.Manifest) error {
	if man.Config.Arch != tiling.ArchSM100a {
		return nil
	}
	n, err := fn.MaxActiveBlocksPerSM(man.BlockThreads, man.DynamicSmemBytes)
	if err != nil {
		return fmt.Errorf("launch: %s: TMEM co-residency check: %w", man.Name, err)
	}
	return checkTMEMCoResidency(man, n)
}

// checkTMEMCoResidency returns an error wrapping ErrTMEMCoResidency when
// perSM CTAs of an sm_100a kernel, each allocating man.Config's TMEM
// columns, would not all get them. tiling pads the dynamic shared memory so
// that it never happens for a kernel this swigen rendered; the check
// catches a manifest or a driver that disagrees (a larger shared memory per
// SM, a smaller reservation).
func checkTMEMCoResidency(man manifest.Manifest, perSM int) error {
	lim, err := tiling.LimitsFor(man.Config.Arch)
	if err != nil {
		return fmt.Errorf("launch: %s: %w", man.Name, err)
	}
	cols := man.Config.TMEMColumns()
	if cols <= 0 || lim.TMEMColumns <= 0 {
		return nil
	}
	if fit := lim.TMEMColumns / cols; perSM > fit {
		return fmt.Errorf("launch: %s: %d CTAs of %d threads with %d bytes of dynamic shared memory can share an SM (cuOccupancyMaxActiveBlocksPerMultiprocessor), but its %d TMEM columns hold %d allocations of %d: %w; re-render it (tiling pads the shared memory to one CTA per SM)",
			man.Name, perSM, man.BlockThreads, man.DynamicSmemBytes, lim.TMEMColumns, fit, cols, ErrTMEMCoResidency)
	}
	return nil
}
