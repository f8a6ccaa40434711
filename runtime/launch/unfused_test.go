package launch

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// TestUnfusedRefusals: the unfused path takes what the fused kernel takes;
// every refusal names what is missing or wrong, before anything is
// launched (so no GPU is needed).
func TestUnfusedRefusals(t *testing.T) {
	t.Parallel()
	cfg := func(name string) tiling.Config {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	bwd := &Unfused{Fused: cfg("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong")}
	bwdOut := &Unfused{Fused: cfg("bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out")}
	up := &Unfused{Fused: cfg("fwd_gateup_sm90a_bf16_m128n256k64_s4_c1x1_cooperative")}
	upTrain := &Unfused{Fused: cfg("fwd_gateup_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_out")}
	b := BwdArgs{M: 64, K: 64, I: 64, Dy: 1 << 20, WDown: 2 << 20, De: 3 << 20, GradDe: 4 << 20}
	f := FwdGateUpArgs{M: 64, K: 64, I: 64, X: 1 << 20, W: 2 << 20, Out: 3 << 20}
	for _, tt := range []struct {
		name string
		u    *Unfused
		a    Args
		want string
	}{
		{"bwd store_out without out", bwdOut, func() BwdArgs { x := b; x.Workspace = 5 << 20; return x }(), "BwdArgs.Out is 0"},
		{"bwd bad K", bwd, func() BwdArgs { x := b; x.K = 7; return x }(), "K=7"},
		{"bwd zero M", bwd, func() BwdArgs { x := b; x.M = 0; return x }(), "M=0"},
		{"fwd training without de", upTrain, f, "FwdGateUpArgs.De is 0"},
		{"fwd without out", up, func() FwdGateUpArgs { x := f; x.Out = 0; return x }(), "FwdGateUpArgs.Out is 0"},
		{"other kind's args", bwd, f, "for a fwd_gateup kernel"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.u.Plan(tt.a)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Plan: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		u    *Unfused
		a    Args
		want int
	}{{bwd, b, 2 * 64 * 64}, {up, f, 4 * 64 * 64}, {upTrain, f, 0}} {
		if got, err := tt.u.WorkspaceBytes(tt.a); err != nil || got != tt.want {
			t.Errorf("%s: WorkspaceBytes = %d, %v; want %d", tt.u.Fused.Name(), got, err, tt.want)
		}
	}
}

// TestUnfusedOwnsIntermediate: a call without a Workspace gets Unfused's
// own intermediate, allocated once per stream and size and reused; a call
// with one gets its own; Close frees them all.
func TestUnfusedOwnsIntermediate(t *testing.T) {
	t.Parallel()
	var allocs []int
	u := &Unfused{mem: func(n int) (cu.DevicePtr, error) {
		allocs = append(allocs, n)
		return cu.DevicePtr(0x7d0000000000 + uint64(len(allocs))<<32), nil
	}}
	p1, err1 := u.intermediate(0, 8192, nil)
	p2, err2 := u.intermediate(0, 8192, nil)
	p3, err3 := u.intermediate(0, 16384, nil)
	own, err4 := u.intermediate(5<<20, 8192, nil)
	other, err5 := u.intermediate(0, 8192, new(cu.Stream))
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		t.Fatal(err)
	}
	if p1 != p2 || p1 == p3 || own != 5<<20 {
		t.Errorf("intermediates %#x %#x %#x %#x: want the first two the same, the third another, the last the caller's", p1, p2, p3, own)
	}
	if other == p1 {
		t.Errorf("a call on another stream got the default stream's intermediate %#x: calls on two streams may overlap", p1)
	}
	if diff := cmp.Diff([]int{8192, 16384, 8192}, allocs); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	if err := u.Close(); err != nil || len(u.ws) != 0 {
		t.Errorf("Close = %v, %d left", err, len(u.ws))
	}
}
