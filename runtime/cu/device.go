package cu

import (
	"bytes"
	"fmt"
	"unsafe"
)

// Device is a CUdevice ordinal handle.
type Device int32

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

// Device attributes (values from cuda.h CUdevice_attribute).
const (
	AttrMaxThreadsPerBlock           DeviceAttribute = 1
	AttrWarpSize                     DeviceAttribute = 10
	AttrClockRate                    DeviceAttribute = 13 // kHz
	AttrMultiprocessorCount          DeviceAttribute = 16
	AttrMemoryClockRate              DeviceAttribute = 36 // kHz
	AttrGlobalMemoryBusWidth         DeviceAttribute = 37 // bits
	AttrL2CacheSize                  DeviceAttribute = 38 // bytes
	AttrComputeCapabilityMajor       DeviceAttribute = 75
	AttrComputeCapabilityMinor       DeviceAttribute = 76
	AttrMaxSharedMemoryPerSM         DeviceAttribute = 81  // bytes
	AttrMaxSharedMemoryPerBlockOptin DeviceAttribute = 97  // bytes
	AttrReservedSharedMemoryPerBlock DeviceAttribute = 111 // bytes
	AttrClusterLaunch                DeviceAttribute = 120
)

// DeviceCount returns the number of CUDA devices.
func DeviceCount() (int, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	var n int32
	if err := invoke(&cuDeviceGetCount, uintptr(unsafe.Pointer(&n))); err != nil {
		return 0, err
	}
	return int(n), nil
}

// GetDevice returns the device with the given ordinal.
func GetDevice(ordinal int) (Device, error) {
	n, err := DeviceCount()
	if err != nil {
		return 0, err
	}
	if ordinal < 0 || ordinal >= n {
		return 0, fmt.Errorf("cu: device ordinal %d not in [0, %d): %w", ordinal, n, ErrNoDevice)
	}
	var d int32
	if err := invoke(&cuDeviceGet, uintptr(unsafe.Pointer(&d)), uintptr(ordinal)); err != nil {
		return 0, err
	}
	return Device(d), nil
}

// Name returns the device's marketing name, e.g. "NVIDIA H200".
func (d Device) Name() (string, error) {
	var buf [256]byte
	if err := invoke(&cuDeviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(d)); err != nil {
		return "", err
	}
	if i := bytes.IndexByte(buf[:], 0); i >= 0 {
		return string(buf[:i]), nil
	}
	return string(buf[:]), nil
}

// Attribute returns a device attribute.
func (d Device) Attribute(a DeviceAttribute) (int, error) {
	var v int32
	if err := invoke(&cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(d)); err != nil {
		return 0, fmt.Errorf("cu: device %d attribute %d: %w", d, a, err)
	}
	return int(v), nil
}

// ComputeCapability returns the major and minor compute capability, e.g. 9, 0.
func (d Device) ComputeCapability() (major, minor int, err error) {
	if major, err = d.Attribute(AttrComputeCapabilityMajor); err != nil {
		return 0, 0, err
	}
	if minor, err = d.Attribute(AttrComputeCapabilityMinor); err != nil {
		return 0, 0, err
	}
	return major, minor, nil
}

// TotalMem returns the device memory size in bytes.
func (d Device) TotalMem() (uint64, error) {
	var n uint64 // size_t
	if err := invoke(&cuDeviceTotalMem, uintptr(unsafe.Pointer(&n)), uintptr(d)); err != nil {
		return 0, err
	}
	return n, nil
}
