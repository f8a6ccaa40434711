package cu

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// sym is one driver entry point. name is the exported (often versioned)
// symbol that dlsym sees; alts are tried after it, for entry points whose
// newest version a driver may lack.
type sym struct {
	name     string
	alts     []string
	optional bool // bound when present; calling it when absent returns ErrMissingSymbol
	addr     uintptr
	bound    string // the name actually bound
}

// Entry points, named after the C functions; the string is the symbol.
var (
	cuInit                       = sym{name: "cuInit"}
	cuGetErrorName               = sym{name: "cuGetErrorName"}
	cuDriverGetVersion           = sym{name: "cuDriverGetVersion"}
	cuDeviceGet                  = sym{name: "cuDeviceGet"}
	cuDeviceGetCount             = sym{name: "cuDeviceGetCount"}
	cuDeviceGetName              = sym{name: "cuDeviceGetName"}
	cuDeviceGetAttribute         = sym{name: "cuDeviceGetAttribute"}
	cuDeviceTotalMem             = sym{name: "cuDeviceTotalMem_v2"}
	cuDevicePrimaryCtxRetain     = sym{name: "cuDevicePrimaryCtxRetain"}
	cuDevicePrimaryCtxRelease    = sym{name: "cuDevicePrimaryCtxRelease_v2"}
	cuCtxSetCurrent              = sym{name: "cuCtxSetCurrent"}
	cuCtxSynchronize             = sym{name: "cuCtxSynchronize"}
	cuMemAlloc                   = sym{name: "cuMemAlloc_v2"}
	cuMemFree                    = sym{name: "cuMemFree_v2"}
	cuMemcpyHtoD                 = sym{name: "cuMemcpyHtoD_v2"}
	cuMemcpyDtoH                 = sym{name: "cuMemcpyDtoH_v2"}
	cuMemcpyDtoD                 = sym{name: "cuMemcpyDtoD_v2"}
	cuMemsetD8                   = sym{name: "cuMemsetD8_v2"}
	cuMemsetD16                  = sym{name: "cuMemsetD16_v2"}
	cuModuleLoadData             = sym{name: "cuModuleLoadData"}
	cuModuleGetFunction          = sym{name: "cuModuleGetFunction"}
	cuModuleUnload               = sym{name: "cuModuleUnload"}
	cuModuleGetGlobal            = sym{name: "cuModuleGetGlobal_v2", optional: true}
	cuFuncSetAttribute           = sym{name: "cuFuncSetAttribute"}
	cuFuncGetAttribute           = sym{name: "cuFuncGetAttribute"}
	cuLaunchKernel               = sym{name: "cuLaunchKernel"}
	cuStreamCreate               = sym{name: "cuStreamCreate"}
	cuStreamDestroy              = sym{name: "cuStreamDestroy_v2"}
	cuStreamQuery                = sym{name: "cuStreamQuery"}
	cuStreamSynchronize          = sym{name: "cuStreamSynchronize"}
	cuEventCreate                = sym{name: "cuEventCreate"}
	cuEventRecord                = sym{name: "cuEventRecord"}
	cuEventQuery                 = sym{name: "cuEventQuery"}
	cuEventDestroy               = sym{name: "cuEventDestroy_v2"}
	cuEventElapsedTime           = sym{name: "cuEventElapsedTime_v2", alts: []string{"cuEventElapsedTime"}}
	cuLaunchKernelEx             = sym{name: "cuLaunchKernelEx", optional: true}       // CUDA 11.8+
	cuTensorMapEncodeTiled       = sym{name: "cuTensorMapEncodeTiled", optional: true} // CUDA 12.0+
	cuGetProcAddress             = sym{name: "cuGetProcAddress_v2", alts: []string{"cuGetProcAddress"}, optional: true}
	cuOccupancyMaxActiveClusters = sym{name: "cuOccupancyMaxActiveClusters", optional: true} // CUDA 11.8+
	// Optional, as every entry point newer than the core: the sm_100a
	// loader's check fails with ErrMissingSymbol instead of the whole
	// binding.
	cuOccupancyMaxActiveBlocksPerMultiprocessor = sym{name: "cuOccupancyMaxActiveBlocksPerMultiprocessor", optional: true}
	allSyms                                     = []*sym{
		&cuInit, &cuGetErrorName, &cuDriverGetVersion, &cuDeviceGet, &cuDeviceGetCount,
		&cuDeviceGetName, &cuDeviceGetAttribute, &cuDeviceTotalMem, &cuDevicePrimaryCtxRetain,
		&cuDevicePrimaryCtxRelease, &cuCtxSetCurrent, &cuCtxSynchronize, &cuMemAlloc, &cuMemFree,
		&cuMemcpyHtoD, &cuMemcpyDtoH, &cuMemcpyDtoD, &cuMemsetD8, &cuMemsetD16,
		&cuModuleLoadData, &cuModuleGetFunction, &cuModuleUnload, &cuModuleGetGlobal, &cuFuncSetAttribute,
		&cuFuncGetAttribute, &cuLaunchKernel, &cuStreamCreate, &cuStreamDestroy, &cuStreamQuery,
		&cuStreamSynchronize, &cuEventCreate, &cuEventRecord, &cuEventQuery, &cuEventDestroy,
		&cuEventElapsedTime, &cuLaunchKernelEx, &cuTensorMapEncodeTiled, &cuGetProcAddress,
		&cuOccupancyMaxActiveClusters, &cuOccupancyMaxActiveBlocksPerMultiprocessor,
	}
)

// bindAll resolves every entry point with Dlsym (RegisterLibFunc would panic
// on a missing symbol). Nothing is stored unless all required ones resolve,
// so a failed bind leaves the package unbound.
func bindAll(h uintptr, lib string) error {
	addrs := make([]uintptr, len(allSyms))
	bound := make([]string, len(allSyms))
	for i, s := range allSyms {
		var firstErr error
		for _, name := range append([]string{s.name}, s.alts...) {
			a, err := dlsym(h, name)
			if err == nil && a != 0 {
				addrs[i], bound[i] = a, name
				break
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if addrs[i] == 0 && !s.optional {
			return fmt.Errorf("cu: init: bind %s in %s: %v: %w", s.name, lib, firstErr, ErrMissingSymbol)
		}
	}
	for i, s := range allSyms {
		s.addr, s.bound = addrs[i], bound[i]
	}
	return nil
}

// invokeRaw calls s with integer/pointer arguments and returns its CUresult.
// The caller must have checked s.addr != 0. go:uintptrescapes keeps Go
// objects whose addresses are converted in the call expression on the heap
// and alive for the call, as purego.SyscallN itself does.
//
//go:uintptrescapes
func invokeRaw(s *sym, args ...uintptr) Result {
	r, _, _ := purego.SyscallN(s.addr, args...)
	// CUresult is a 32-bit C enum; the upper half of the register is junk.
	return Result(int32(uint32(r)))
}

// invoke calls s and converts a failure into an *Error naming the symbol.
//
//go:uintptrescapes
func invoke(s *sym, args ...uintptr) error {
	if s.addr == 0 {
		if !initDone || initErr != nil {
			return fmt.Errorf("cu: %s: driver not initialized (call cu.Init): %w", s.name, ErrNoDriver)
		}
		return fmt.Errorf("cu: %s: not provided by this driver: %w", s.name, ErrMissingSymbol)
	}
	r, _, _ := purego.SyscallN(s.addr, args...)
	return check(s.bound, Result(int32(uint32(r))))
}
