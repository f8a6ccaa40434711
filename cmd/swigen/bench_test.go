package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestBenchModelProjection(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"b200 seed", []string{"bench", "--model", "b200"}, 0,
			[]string{"PROJECTION", "not a measurement", "fused floor 79.5 us (memory-bound)", "194 us -> fused 175.5 us"}},
		{"h200 two shapes", []string{"bench", "--model", "h200", "--shape", "16384,768,4608", "--shape", "8192,4096,14336"}, 0,
			[]string{"M=16384 K=768 I=4608", "M=8192 K=4096 I=14336"}},
		{"unknown model", []string{"bench", "--model", "a100"}, exitUsage, []string{`"a100"`, "b200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, errb.String())
			}
			all := out.String() + errb.String()
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
		})
	}
}
