package view

import (
	"strings"
	"testing"
)

// TestCheckRegisterSplit pins the setmaxnreg budget: 40/232 and 24/240 fit
// 384 threads (3 x 168 = 504); 32/240 does not (every launch hung in
// setmaxnreg.inc until the producer's deadline trapped).
func TestCheckRegisterSplit(t *testing.T) {
	tests := []struct {
		threads, producer, consumer int
		wantErr                     string
	}{
		{threads: 384, producer: 40, consumer: 232},
		{threads: 384, producer: 24, consumer: 240},
		{threads: 384, producer: 32, consumer: 240, wantErr: "producer 32 + 2 consumers x 240 = 512 registers per thread row, over the 504"},
		{threads: 384, producer: 20, consumer: 232, wantErr: "setmaxnreg target 20: must be a multiple of 8 in [24, 256]"},
		{threads: 384, producer: 40, consumer: 230, wantErr: "setmaxnreg target 230"},
		{threads: 128, producer: 40, consumer: 232, wantErr: "128 threads: want a producer warpgroup"},
		{threads: 512, producer: 24, consumer: 160},
		{threads: 512, producer: 40, consumer: 160, wantErr: "producer 40 + 3 consumers x 160 = 520 registers per thread row, over the 512"},
	}
	for _, tt := range tests {
		err := checkRegisterSplit(tt.threads, tt.producer, tt.consumer)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("checkRegisterSplit(%d, %d, %d) = %v, want nil", tt.threads, tt.producer, tt.consumer, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("checkRegisterSplit(%d, %d, %d) = %v, want an error containing %q", tt.threads, tt.producer, tt.consumer, err, tt.wantErr)
		}
	}
}
