package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

func fakeProbes(tcErr error, buildErr map[tiling.Arch]error, driver int, gpus []GPU, driverErr error) Probes {
	return Probes{
		FindToolchain: func(toolchain.FindOptions) (*toolchain.Toolchain, error) {
			if tcErr != nil {
				return nil, tcErr
			}
			return &toolchain.Toolchain{NVCC: "/cuda/bin/nvcc", PTXAS: "/cuda/bin/ptxas", Version: "13.0.88"}, nil
		},
		Build: func(_ context.Context, _ *toolchain.Toolchain, a tiling.Arch) (time.Duration, error) {
			return time.Second, buildErr[a]
		},
		Driver: func() (int, []GPU, error) { return driver, gpus, driverErr },
	}
}

func TestDoctorReport(t *testing.T) {
	t.Parallel()
	h200 := GPU{Ordinal: 0, Name: "NVIDIA H200", Major: 9, Minor: 0, SMs: 132}
	b200 := GPU{Ordinal: 1, Name: "NVIDIA B200", Major: 10, Minor: 0, SMs: 148}
	b300 := GPU{Ordinal: 0, Name: "NVIDIA B300", Major: 10, Minor: 3, SMs: 148}
	noCompiler := fmt.Errorf("find toolchain: %w", toolchain.ErrNoCompiler)
	noDriver := fmt.Errorf("cu: init: %w", cu.ErrNoDriver)
	for _, tt := range []struct {
		name    string
		probes  Probes
		noBuild bool
		want    []string
		notWant []string
	}{
		{"nothing installed", fakeProbes(noCompiler, nil, 0, nil, noDriver), false, []string{
			"nvcc           not usable: find toolchain: no CUDA compiler",
			"build sm_90a   unknown (no compiler)",
			"libcuda  not found",
			"  none",
			"sm_90a   build not checked; does not run here: no compute capability 9.0 GPU here",
			"sm_100a kernels are generated and compile-verified only, not executed",
		}, []string{"RUNS"}},
		{"H200 with compiler", fakeProbes(nil, nil, 13000, []GPU{h200}, nil), false, []string{
			"nvcc           13.0.88 (/cuda/bin/nvcc)",
			"build sm_100a  ok (probe kernel compiled in 1s)",
			"libcuda  loaded, CUDA 13.0 (13000)",
			"0  NVIDIA H200  compute capability 9.0  132 SMs",
			"sm_90a   builds here; RUNS here on GPU 0 (compute capability 9.0)",
			"sm_100a  builds here; does not run here: no compute capability 10.0 GPU here. sm_100a kernels are generated and compile-verified only, not executed",
		}, nil},
		{"sm_100a build fails", fakeProbes(nil, map[tiling.Arch]error{tiling.ArchSM100a: errors.New("ptxas fatal: bad arch\nmore")}, 13000, []GPU{h200}, nil), false, []string{
			"build sm_100a  FAILS: ptxas fatal: bad arch\n",
			"sm_100a  does NOT build here",
		}, nil},
		{"B200 present", fakeProbes(nil, nil, 13000, []GPU{h200, b200}, nil), false, []string{
			"sm_100a  builds here; RUNS here on GPU 1 (compute capability 10.0)",
		}, []string{"compile-verified only"}},
		{"B300 is not 10.0", fakeProbes(nil, nil, 13000, []GPU{b300}, nil), false, []string{
			"GPU 0 is 10.3; sm_100a cubins need exactly 10.0",
			"compile-verified only, not executed",
		}, nil},
		{"no build", fakeProbes(nil, nil, 13000, nil, nil), true, []string{
			"build sm_90a   not tried (--no-build)",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Gather(context.Background(), Options{NoBuild: tt.noBuild}, tt.probes)
			var out bytes.Buffer
			if err := r.Write(&out); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("report has %q:\n%s", w, out.String())
				}
			}
		})
	}
}
