// Package cu is a small binding of the CUDA driver API (libcuda) through
// purego, so programs that use it build with CGO_ENABLED=0 and need no CUDA
// headers or toolkit at build time. Only the driver library is needed at run
// time; without it Init returns an error wrapping ErrNoDriver.
//
// All context-bound work runs on one goroutine per Context that is locked to
// its OS thread and has the context current (see Context.Do), so callers
// never lock threads themselves.
package cu

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// The sentinel errors below carry no "cu:" prefix: they are only returned
// wrapped in an error that already starts with one, and a second prefix
// would read "cu: init: cu: ...".

// ErrNoDriver is wrapped by Init when libcuda.so.1 cannot be loaded.
var ErrNoDriver = errors.New("CUDA driver library libcuda.so.1 not found")

// ErrNoDevice is wrapped when the driver reports no CUDA device, or a device
// ordinal is out of range.
var ErrNoDevice = errors.New("no CUDA device")

// ErrMissingSymbol is wrapped when the driver lacks an entry point this
// package needs (an old driver).
var ErrMissingSymbol = errors.New("driver entry point missing")

// Result is a CUresult status code.
type Result int32

// Result codes that this package checks for by value (cuda.h CUresult).
const (
	Success             Result = 0
	ErrorInvalidValue   Result = 1
	ErrorOutOfMemory    Result = 2
	ErrorNoDevice       Result = 100
	ErrorNotFound       Result = 500
	ErrorNotReady       Result = 600
	ErrorIllegalAddress Result = 700
)

// fallbackNames covers the codes most often seen (values from cuda.h 13.0),
// for when cuGetErrorName is not bound (no driver, or errors in tests).
var fallbackNames = map[Result]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	35:  "CUDA_ERROR_INSUFFICIENT_DRIVER",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	218: "CUDA_ERROR_INVALID_PTX",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	717: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	718: "CUDA_ERROR_INVALID_PC",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	720: "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
	801: "CUDA_ERROR_NOT_SUPPORTED",
	912: "CUDA_ERROR_INVALID_CLUSTER_SIZE",
	999: "CUDA_ERROR_UNKNOWN",
}

// Name returns the CUDA_ERROR_* name of r, asking the driver when it is
// loaded.
func (r Result) Name() string {
	if cuGetErrorName.addr != 0 {
		var p *byte
		if invokeRaw(&cuGetErrorName, uintptr(r), uintptr(unsafe.Pointer(&p))) == Success && p != nil {
			return cString(p)
		}
	}
	if n, ok := fallbackNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult(%d)", int32(r))
}

// Error is a failed driver call: the entry point, its status code and the
// code's name.
type Error struct {
	Op   string // driver entry point, e.g. "cuMemAlloc_v2"
	Code Result
	Name string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
}

// Error formats e as "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2)".
func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = e.Code.Name()
	}
	return fmt.Sprintf("%s: %s (%d)", e.Op, name, int32(e.Code))
}

// Is makes errors.Is(err, ErrNoDevice) hold for CUDA_ERROR_NO_DEVICE.
func (e *Error) Is(target error) bool {
	return target == ErrNoDevice && e.Code == ErrorNoDevice
}

// ContextLost reports whether err holds a driver error that leaves the
// CUDA context unusable: a kernel fault (illegal address or instruction,
// misaligned access, launch failure, ...) is sticky, and every later call
// in the context returns it again, so the work after it cannot run in this
// process.
func ContextLost(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case 700, 714, 715, 716, 717, 718, 719:
		return true
	}
	return false
}

// check turns a status into an error (nil for CUDA_SUCCESS).
func check(op string, r Result) error {
	if r == Success {
		return nil
	}
	return &Error{Op: op, Code: r, Name: r.Name()}
}

// cString copies the NUL-terminated C string at p.
func cString(p *byte) string {
	var b strings.Builder
	for i := 0; i < 4096; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b.WriteByte(c)
	}
	return b.String()
}

// libNames are tried in order: the versioned soname is what the driver
// package installs; the bare name exists only with development symlinks.
var libNames = []string{"libcuda.so.1", "libcuda.so"}

var (
	initMu   sync.Mutex
	initDone bool
	initErr  error
)

// Init loads the driver library, binds every entry point and calls
// cuInit(0). It is idempotent: later calls return the first call's result.
func Init() error {
	initMu.Lock()
	defer initMu.Unlock()
	if initDone {
		return initErr
	}
	initDone = true
	initErr = initDriver(libNames)
	return initErr
}

func initDriver(names []string) error {
	h, name, err := openLibrary(names)
	if err != nil {
		return err
	}
	if err := bindAll(h, name); err != nil {
		return err
	}
	if err := check("cuInit", invokeRaw(&cuInit, 0)); err != nil {
		return fmt.Errorf("cu: init: %w", err)
	}
	return nil
}

// Available reports whether the driver loads and at least one device exists;
// GPU tests use it to skip.
func Available() bool {
	if Init() != nil {
		return false
	}
	n, err := DeviceCount()
	return err == nil && n > 0
}

// DriverVersion returns the driver's CUDA version as 1000*major + 10*minor.
func DriverVersion() (int, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	var v int32
	if err := invoke(&cuDriverGetVersion, uintptr(unsafe.Pointer(&v))); err != nil {
		return 0, err
	}
	return int(v), nil
}

// GetProcAddress returns the driver entry point for symbol (the base name,
// e.g. "cuMemAlloc") matching cudaVersion (1000*major + 10*minor).
func GetProcAddress(symbol string, cudaVersion int) (uintptr, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	cs := append([]byte(symbol), 0)
	var fn uintptr
	var status int32
	if err := invoke(&cuGetProcAddress, uintptr(unsafe.Pointer(&cs[0])), uintptr(unsafe.Pointer(&fn)),
		uintptr(cudaVersion), 0, uintptr(unsafe.Pointer(&status))); err != nil {
		return 0, fmt.Errorf("cu: get proc address %q: %w", symbol, err)
	}
	if fn == 0 {
		return 0, fmt.Errorf("cu: get proc address %q (CUDA %d): status %d: %w", symbol, cudaVersion, status, ErrMissingSymbol)
	}
	return fn, nil
}
