package launch

import (
	"errors"
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// ErrTMEMCoResidency is returned (wrapped) by Load for an sm_100a kernel of
// which more CTAs can share an SM than tensor memory holds allocations
// for: the extra CTAs would block in tcgen05.alloc, and with clusters two
// clusters' CTAs can wait for each other's partners forever.
var ErrTMEMCoResidency = errors.New("more co-resident CTAs than TMEM allocations")

// checkTMEMOccupancy asks the driver how many CTAs of fn, launched as man
// says, can be resident on one SM, and refuses a kernel whose manifest
// allows fewer (MaxCTAsPerSM: sm_100a's tensor-memory allocations). Other
// kernels pass without a query.
func checkTMEMOccupancy(fn *cu.Function, man manifest.Manifest) error {
	if man.MaxCTAsPerSM <= 0 {
		return nil
	}
	n, err := fn.MaxActiveBlocksPerSM(man.BlockThreads, man.DynamicSmemBytes)
	if err != nil {
		return fmt.Errorf("launch: %s: TMEM co-residency check: %w", man.Name, err)
	}
	return checkTMEMCoResidency(man, n)
}

// checkTMEMCoResidency returns an error wrapping ErrTMEMCoResidency when
// perSM CTAs may share an SM but the manifest allows fewer. tiling pads the
// dynamic shared memory so that it never happens for a kernel this swigen
// rendered; the check catches a manifest or a driver that disagrees (a
// larger shared memory per SM, a smaller reservation).
func checkTMEMCoResidency(man manifest.Manifest, perSM int) error {
	if fit := man.MaxCTAsPerSM; fit > 0 && perSM > fit {
		return fmt.Errorf("launch: %s: %d CTAs of %d threads with %d bytes of dynamic shared memory can share an SM (cuOccupancyMaxActiveBlocksPerMultiprocessor), but tensor memory (TMEM) holds the allocations of %d: %w; re-render it (tiling pads the shared memory to one CTA per SM)",
			man.Name, perSM, man.BlockThreads, man.DynamicSmemBytes, fit, ErrTMEMCoResidency)
	}
	return nil
}
