package perfmodel

import (
	"math"
	"testing"
)

func TestScheduleRun(t *testing.T) {
	tests := []struct {
		name string
		s    Schedule
		want float64
	}{
		{"no tiles", Schedule{}, 0},
		// Launch + first load + mainloop + epilogue.
		{"one tile", Schedule{Tiles: 1, MainloopUS: 3, EpilogueUS: 5, AccStages: 2, LaunchUS: 1, TMALatencyUS: 1}, 10},
		// Epilogue-bound: 1 + 1 + 3 + 3*5 + 5.
		{"static, epilogue-bound", Schedule{Tiles: 4, MainloopUS: 3, EpilogueUS: 5, AccStages: 2, LaunchUS: 1, TMALatencyUS: 1}, 25},
		// Mainloop-bound: 1 + 1 + 5 + 3*5 + 3.
		{"static, mainloop-bound", Schedule{Tiles: 4, MainloopUS: 5, EpilogueUS: 3, AccStages: 2, LaunchUS: 1, TMALatencyUS: 1}, 25},
		// One accumulator: no overlap, tile after tile: 1 + 1 + 4*(3+5).
		{"one TMEM accumulator", Schedule{Tiles: 4, MainloopUS: 3, EpilogueUS: 5, AccStages: 1, LaunchUS: 1, TMALatencyUS: 1}, 34},
		// A = B = 2, first load 0.5, round trip 1. Static: 0.5 + 2 + 2*2 + 2.
		{"static reference", Schedule{Tiles: 3, MainloopUS: 2, EpilogueUS: 2, AccStages: 2, TMALatencyUS: 0.5}, 8.5},
		// Ring of 1: request 1 waits for the epilogue of tile 0 to read
		// response 0 (4.5), arrives at 5.5, tile 2's mainloop starts at
		// 6.0 and its epilogue ends at 10.
		{"CLC ring 1", Schedule{Tiles: 3, MainloopUS: 2, EpilogueUS: 2, AccStages: 2, TMALatencyUS: 0.5, CLCDepth: 1, CLCRoundTripUS: 1}, 10},
		// Ring of 3 (tiling.DefaultCLCStages): the responses arrive at 1 and
		// 2, ahead of need; as static.
		{"CLC ring 3", Schedule{Tiles: 3, MainloopUS: 2, EpilogueUS: 2, AccStages: 2, TMALatencyUS: 0.5, CLCDepth: 3, CLCRoundTripUS: 1}, 8.5},
		// A round trip longer than a tile: one response per 3 us paces the
		// tiles whatever the depth. Mainloops start at 0, 3 and 6.
		{"CLC slower than the tiles", Schedule{Tiles: 3, MainloopUS: 1, EpilogueUS: 1, AccStages: 2, CLCDepth: 3, CLCRoundTripUS: 3}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Run(); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("%+v.Run() = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}
