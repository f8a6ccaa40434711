package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeedFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		args    []string
		want    string // String() after parsing
		wantErr string
	}{
		{"unset", nil, "random", ""},
		{"decimal", []string{"--seed", "7"}, "7", ""},
		{"hex", []string{"--seed", "0x10"}, "16", ""},
		{"random", []string{"--seed", "7", "--seed", "random"}, "random", ""},
		{"negative", []string{"--seed", "-1"}, "", "want an unsigned 64-bit integer or random"},
		{"word", []string{"--seed", "x"}, "", "want an unsigned 64-bit integer or random"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *verifyOptions
			var out bytes.Buffer
			cmd := newVerifyCmd(&env{stdout: &out, stderr: &out}, func(_ context.Context, o *verifyOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Seed.String()); diff != "" {
				t.Errorf("seed (-want +got):\n%s", diff)
			}
			// Seed draws a random seed once and keeps it.
			if s1, s2 := got.Seed.Seed(), got.Seed.Seed(); s1 != s2 {
				t.Errorf("Seed() = %d then %d, want one value", s1, s2)
			}
		})
	}
}

func TestVerifyHelpSeedDefault(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "verify", "--help")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "(default random)") {
		t.Errorf("verify --help does not show the --seed default as random:\n%s", out)
	}
}
