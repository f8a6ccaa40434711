package perfmodel

// Schedule is one work unit's sequence of tiles through the sm_100a
// pipeline: the mainloop (operand TMA + MMAs into a TMEM accumulator) and
// the epilogue (TMEM -> registers -> shared memory -> TMA stores), with
// AccStages TMEM accumulators and, for the clc scheduler, a CLC response
// ring of CLCDepth slots. Times are in microseconds.
type Schedule struct {
	Tiles                  int
	MainloopUS, EpilogueUS float64
	AccStages              int
	// LaunchUS is paid once before the first TMA issue; TMALatencyUS
	// before a mainloop whose tile became known only just now (the first
	// tile, and a tile whose CLC response came late).
	LaunchUS, TMALatencyUS float64
	// CLCDepth is the CLC ring's depth; 0 is the static scheduler, whose
	// next tile is known without asking.
	CLCDepth       int
	CLCRoundTripUS float64
}

// Run returns the time from the launch to the end of the last epilogue.
// For tile k:
//
//	mainloop starts at max(end of mainloop k-1,
//	                       end of epilogue k-AccStages (its TMEM buffer is free),
//	                       tile k known + TMALatencyUS)
//	epilogue starts at max(end of mainloop k, end of epilogue k-1)
//
// Tile 0 is known at LaunchUS. With CLC, tile k (k >= 1) is known when
// response k-1 arrives, CLCRoundTripUS after its request; request j is
// issued once response j-1 is in and slot j % CLCDepth is free, i.e. every
// role (the epilogue last) has read response j-CLCDepth, which the
// epilogue does when it finishes tile j-CLCDepth. Without CLC, tiles after
// the first are known in time and this is
//
//	LaunchUS + TMALatencyUS + Mainloop + (Tiles-1)*max(Mainloop, Epilogue) + Epilogue.
//
// The TMEM buffer is taken as free at the end of its epilogue (the kernel
// frees it a sub-tile earlier, which matters only to the CLC slack).
func (s Schedule) Run() float64 {
	n := s.Tiles
	if n <= 0 {
		return 0
	}
	mEnd := make([]float64, n)
	eEnd := make([]float64, n)
	resp := s.LaunchUS // when the latest CLC response arrived (the scheduler starts at launch)
	for k := range n {
		start := s.LaunchUS + s.TMALatencyUS
		if k > 0 {
			start = max(mEnd[k-1], s.accFree(eEnd, k))
			if s.CLCDepth > 0 {
				// Response k-1 names tile k; its slot was last used by
				// response k-1-CLCDepth.
				req := resp
				if j := k - 1 - s.CLCDepth; j >= 0 {
					req = max(req, eEnd[j])
				}
				resp = req + s.CLCRoundTripUS
				start = max(start, resp+s.TMALatencyUS)
			}
		}
		mEnd[k] = start + s.MainloopUS
		eStart := mEnd[k]
		if k > 0 {
			eStart = max(eStart, eEnd[k-1])
		}
		eEnd[k] = eStart + s.EpilogueUS
	}
	return eEnd[n-1]
}

// accFree is when tile k's TMEM buffer is free: at the end of the epilogue
// AccStages tiles back (0 before that).
func (s Schedule) accFree(eEnd []float64, k int) float64 {
	if k < s.AccStages {
		return 0
	}
	return eEnd[k-s.AccStages]
}
