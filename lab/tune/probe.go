package tune

import (
	"fmt"
	"github.com/swigen/swigen/internal/badinput"

	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/tiling"
)

// InputError is bad input to a tune, the user's to fix (a device that is
// not there, an input file that is missing): not a failure of the tune.
type InputError = badinput.Error

// ProbeGPU describes the GPUs of devices, which must all be of one kind
// (results are keyed by one GPU name), without creating a CUDA context.
func ProbeGPU(devices []int) (GPU, error) {
	var g GPU
	if err := cu.Init(); err != nil {
		return g, fmt.Errorf("tune: %w (swigen tune needs an NVIDIA driver and GPU)", err)
	}
	n, err := cu.DeviceCount()
	if err != nil {
		return g, fmt.Errorf("tune: %w", err)
	}
	for i, d := range devices {
		if d < 0 || d >= n {
			return g, &InputError{Err: fmt.Errorf("tune: --devices %d: this machine has %d GPUs (0..%d)", d, n, n-1)}
		}
		dev, err := cu.GetDevice(d)
		if err != nil {
			return g, err
		}
		name, err := dev.Name()
		if err != nil {
			return g, err
		}
		major, minor, err := dev.ComputeCapability()
		if err != nil {
			return g, err
		}
		if i > 0 {
			if name != g.Name {
				// Mixed GPUs would record one's times under the other's key.
				return g, &InputError{Err: fmt.Errorf("tune: --devices mixes %s (device %d) and %s (device %d); tune one kind at a time", g.Name, devices[0], name, d)}
			}
			continue
		}
		if err := g.describe(dev, name, major, minor); err != nil {
			return g, err
		}
	}
	if g.Driver, err = cu.DriverVersion(); err != nil {
		return g, err
	}
	return g, nil
}

// describe fills in g from the first device, named name, of compute
// capability major.minor.
func (g *GPU) describe(dev cu.Device, name string, major, minor int) error {
	var err error
	if g.SMs, err = dev.Attribute(cu.AttrMultiprocessorCount); err != nil {
		return err
	}
	g.Name, g.CC = name, fmt.Sprintf("sm_%d%d", major, minor)
	arch, ok := tiling.ArchForCC(major, minor)
	if !ok {
		return fmt.Errorf("tune: %s has compute capability %d.%d: swigen kernels need 9.0 (sm_90a) or 10.0 (sm_100a)", name, major, minor)
	}
	g.Arch = arch
	return nil
}
