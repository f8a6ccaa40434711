package cu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// Module is a loaded CUmodule.
type Module struct {
	ctx *Context
	h   uintptr
}

// Function is a kernel (CUfunction) of a Module.
type Function struct {
	mod  *Module
	h    uintptr
	name string
}

// FunctionAttribute is a CUfunction_attribute.
type FunctionAttribute int32

// Function attributes (values from cuda.h CUfunction_attribute).
const (
	FuncAttrMaxThreadsPerBlock            FunctionAttribute = 0
	FuncAttrSharedSizeBytes               FunctionAttribute = 1 // static shared memory
	FuncAttrConstSizeBytes                FunctionAttribute = 2
	FuncAttrLocalSizeBytes                FunctionAttribute = 3 // per-thread local memory (spills, stack)
	FuncAttrNumRegs                       FunctionAttribute = 4
	FuncAttrPTXVersion                    FunctionAttribute = 5
	FuncAttrBinaryVersion                 FunctionAttribute = 6
	FuncAttrMaxDynamicSharedSizeBytes     FunctionAttribute = 8
	FuncAttrRequiredClusterWidth          FunctionAttribute = 11
	FuncAttrRequiredClusterHeight         FunctionAttribute = 12
	FuncAttrRequiredClusterDepth          FunctionAttribute = 13
	FuncAttrNonPortableClusterSizeAllowed FunctionAttribute = 14
	FuncAttrClusterSchedulingPolicyPrefer FunctionAttribute = 15
)

var (
	elfMagic    = []byte{0x7f, 'E', 'L', 'F'}
	fatbinMagic = []byte{0x50, 0xed, 0x55, 0xba} // 0xBA55ED50 little-endian
)

// moduleImage returns image as cuModuleLoadData needs it: cubins and fatbins
// unchanged, PTX text NUL-terminated (copied only when the NUL is missing).
func moduleImage(image []byte) []byte {
	if bytes.HasPrefix(image, elfMagic) || bytes.HasPrefix(image, fatbinMagic) {
		return image
	}
	if len(image) > 0 && image[len(image)-1] == 0 {
		return image
	}
	return append(append(make([]byte, 0, len(image)+1), image...), 0)
}

// LoadModule loads a cubin, fatbin or PTX image (cuModuleLoadData).
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("cu: load module: empty image")
	}
	img := moduleImage(image)
	m := &Module{ctx: c}
	err := c.Do(func() error {
		err := invoke(&cuModuleLoadData, uintptr(unsafe.Pointer(&m.h)), uintptr(unsafe.Pointer(&img[0])))
		runtime.KeepAlive(img)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cu: load module (%d bytes): %w", len(image), err)
	}
	return m, nil
}

// Function looks up the kernel with the given (mangled or extern "C") name.
func (m *Module) Function(name string) (*Function, error) {
	cs := append([]byte(name), 0)
	f := &Function{mod: m, name: name}
	err := m.ctx.Do(func() error {
		return invoke(&cuModuleGetFunction, uintptr(unsafe.Pointer(&f.h)), m.h, uintptr(unsafe.Pointer(&cs[0])))
	})
	if err != nil {
		return nil, fmt.Errorf("cu: function %q: %w", name, err)
	}
	return f, nil
}

// Global returns the device address and size in bytes of the module-scope
// __device__ variable name (cuModuleGetGlobal_v2).
func (m *Module) Global(name string) (DevicePtr, uint64, error) {
	if cuModuleGetGlobal.addr == 0 {
		return 0, 0, fmt.Errorf("cu: global %q: the driver has no cuModuleGetGlobal_v2", name)
	}
	cs := append([]byte(name), 0)
	var p DevicePtr
	var n uint64
	err := m.ctx.Do(func() error {
		return invoke(&cuModuleGetGlobal, uintptr(unsafe.Pointer(&p)), uintptr(unsafe.Pointer(&n)), m.h, uintptr(unsafe.Pointer(&cs[0])))
	})
	if err != nil {
		return 0, 0, fmt.Errorf("cu: global %q: %w", name, err)
	}
	return p, n, nil
}

// Unload unloads m; its Functions become invalid.
func (m *Module) Unload() error {
	if m == nil || m.h == 0 {
		return nil
	}
	err := m.ctx.Do(func() error { return invoke(&cuModuleUnload, m.h) })
	m.h = 0
	return err
}

// Name returns the name f was looked up by.
func (f *Function) Name() string { return f.name }

// Handle returns the raw CUfunction.
func (f *Function) Handle() uintptr { return f.h }

// SetAttribute sets a function attribute.
func (f *Function) SetAttribute(a FunctionAttribute, v int) error {
	err := f.mod.ctx.Do(func() error { return invoke(&cuFuncSetAttribute, f.h, uintptr(a), uintptr(int32(v))) })
	if err != nil {
		return fmt.Errorf("cu: function %q: set attribute %d = %d: %w", f.name, a, v, err)
	}
	return nil
}

// SetMaxDynamicSharedMemory allows launches of f with up to bytes of dynamic
// shared memory (needed above 48 KiB).
func (f *Function) SetMaxDynamicSharedMemory(bytes int) error {
	return f.SetAttribute(FuncAttrMaxDynamicSharedSizeBytes, bytes)
}

// SetNonPortableClusterSizeAllowed allows cluster sizes above the portable
// limit of 8 CTAs (16 on H100/H200).
func (f *Function) SetNonPortableClusterSizeAllowed(allow bool) error {
	v := 0
	if allow {
		v = 1
	}
	return f.SetAttribute(FuncAttrNonPortableClusterSizeAllowed, v)
}

// Attribute returns a function attribute, e.g. FuncAttrNumRegs.
func (f *Function) Attribute(a FunctionAttribute) (int, error) {
	var v int32
	err := f.mod.ctx.Do(func() error { return invoke(&cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), f.h) })
	if err != nil {
		return 0, fmt.Errorf("cu: function %q: attribute %d: %w", f.name, a, err)
	}
	return int(v), nil
}

// LaunchConfig describes a launch. Zero Y and Z components of Grid, Block
// and Cluster mean 1. A zero Cluster means no cluster attribute (the kernel's
// compiled-in cluster shape, if any, applies).
type LaunchConfig struct {
	Grid, Block [3]uint32
	SharedMem   uint32 // dynamic shared memory bytes
	Stream      *Stream
	Cluster     [3]uint32
}

// Byte layout of CUlaunchConfig and CUlaunchAttribute on 64-bit targets
// (cuda.h): seven unsigned ints, 4 bytes of padding, CUstream at 32, attrs
// at 40, numAttrs at 48, size 56; an attribute is {id uint32; pad [4]byte;
// value [64]byte} with clusterDim {x, y, z uint32} at the start of value.
const (
	launchConfigSize      = 56
	launchAttrSize        = 72
	launchBufSize         = launchConfigSize + launchAttrSize
	launchAttrClusterDim  = 4 // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
	offLaunchStream       = 32
	offLaunchAttrs        = 40
	offLaunchNumAttrs     = 48
	offAttrValue          = 8
	launchAttrOffsetInBuf = launchConfigSize
)

func normDims(d [3]uint32) [3]uint32 {
	for i := 1; i < 3; i++ {
		if d[i] == 0 {
			d[i] = 1
		}
	}
	return d
}

func (cfg LaunchConfig) hasCluster() bool { return cfg.Cluster != [3]uint32{} }

// packLaunchConfig writes a CUlaunchConfig followed by one cluster-dimension
// CUlaunchAttribute into buf (launchBufSize bytes). attrAddr is the address
// buf[launchConfigSize] will have when the driver reads it; it is stored in
// the attrs field. Without a cluster, attrs is 0 and numAttrs 0.
func packLaunchConfig(buf []byte, cfg LaunchConfig, stream, attrAddr uintptr) {
	clear(buf[:launchBufSize])
	e := binary.NativeEndian
	grid, block := normDims(cfg.Grid), normDims(cfg.Block)
	for i := 0; i < 3; i++ {
		e.PutUint32(buf[4*i:], grid[i])
		e.PutUint32(buf[12+4*i:], block[i])
	}
	e.PutUint32(buf[24:], cfg.SharedMem)
	e.PutUint64(buf[offLaunchStream:], uint64(stream))
	if !cfg.hasCluster() {
		return
	}
	e.PutUint64(buf[offLaunchAttrs:], uint64(attrAddr))
	e.PutUint32(buf[offLaunchNumAttrs:], 1)
	a := buf[launchAttrOffsetInBuf:]
	e.PutUint32(a, launchAttrClusterDim)
	cl := normDims(cfg.Cluster)
	for i := 0; i < 3; i++ {
		e.PutUint32(a[offAttrValue+4*i:], cl[i])
	}
}

// Launch launches f. params are pointers to each kernel argument's value in
// host memory (the kernelParams array); the driver copies the values at
// launch, so they may be reused once Launch returns. With cfg.Cluster set it
// uses cuLaunchKernelEx with a cluster-dimension attribute, else
// cuLaunchKernel. Launch is asynchronous: errors in the kernel surface at the
// next synchronizing call.
func (c *Context) Launch(f *Function, cfg LaunchConfig, params ...unsafe.Pointer) error {
	if f == nil {
		return errors.New("cu: launch: nil function")
	}
	if cfg.Grid[0] == 0 || cfg.Block[0] == 0 {
		return fmt.Errorf("cu: launch %q: grid %v block %v: x dimensions must be >= 1", f.name, cfg.Grid, cfg.Block)
	}
	for i, p := range params {
		if p == nil {
			return fmt.Errorf("cu: launch %q: params[%d] is nil (pass a pointer to the argument value)", f.name, i)
		}
	}
	err := c.Do(func() error {
		var kp uintptr
		if len(params) > 0 {
			kp = uintptr(unsafe.Pointer(&params[0]))
		}
		var err error
		if cfg.hasCluster() {
			// uint64 backing keeps the 8-byte fields aligned.
			words := make([]uint64, launchBufSize/8)
			buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), launchBufSize)
			packLaunchConfig(buf, cfg, cfg.Stream.handle(), uintptr(unsafe.Pointer(&buf[launchAttrOffsetInBuf])))
			err = invoke(&cuLaunchKernelEx, uintptr(unsafe.Pointer(&words[0])), f.h, kp, 0)
			runtime.KeepAlive(words)
		} else {
			g, b := normDims(cfg.Grid), normDims(cfg.Block)
			err = invoke(&cuLaunchKernel, f.h,
				uintptr(g[0]), uintptr(g[1]), uintptr(g[2]),
				uintptr(b[0]), uintptr(b[1]), uintptr(b[2]),
				uintptr(cfg.SharedMem), cfg.Stream.handle(), kp, 0)
		}
		runtime.KeepAlive(params)
		return err
	})
	if err != nil {
		return fmt.Errorf("cu: launch %q grid %v block %v cluster %v smem %d: %w",
			f.name, cfg.Grid, cfg.Block, cfg.Cluster, cfg.SharedMem, err)
	}
	return nil
}

// MaxActiveBlocksPerSM is how many CTAs of f with threads threads and smem
// bytes of dynamic shared memory can be resident on one multiprocessor at
// once (cuOccupancyMaxActiveBlocksPerMultiprocessor): the bound of every
// per-SM resource, registers included. A driver without the entry point
// gives an error wrapping ErrMissingSymbol.
func (f *Function) MaxActiveBlocksPerSM(threads, smem int) (int, error) {
	if f == nil || f.mod == nil || f.mod.ctx == nil {
		return 0, errors.New("cu: max active blocks per SM: nil function")
	}
	if threads <= 0 || smem < 0 {
		return 0, fmt.Errorf("cu: max active blocks per SM %q: block of %d threads with %d bytes of shared memory: want threads > 0, smem >= 0", f.name, threads, smem)
	}
	var n int32
	err := f.mod.ctx.Do(func() error {
		return invoke(&cuOccupancyMaxActiveBlocksPerMultiprocessor, uintptr(unsafe.Pointer(&n)), f.h, uintptr(threads), uintptr(smem))
	})
	if err != nil {
		return 0, fmt.Errorf("cu: max active blocks per SM %q block %d smem %d: %w", f.name, threads, smem, err)
	}
	return int(n), nil
}

// MaxActiveClusters is how many clusters of cfg.Cluster CTAs (with cfg's
// block size and dynamic shared memory) can be resident on the device at
// once (cuOccupancyMaxActiveClusters). A persistent kernel launched with
// more clusters than this runs a second wave, so grids are capped by it.
func (c *Context) MaxActiveClusters(f *Function, cfg LaunchConfig) (int, error) {
	if f == nil {
		return 0, errors.New("cu: max active clusters: nil function")
	}
	if !cfg.hasCluster() {
		return 0, fmt.Errorf("cu: max active clusters %q: no cluster shape given", f.name)
	}
	if cfg.Grid[0] == 0 {
		cfg.Grid[0] = normDims(cfg.Cluster)[0]
	}
	var n int32
	err := c.Do(func() error {
		words := make([]uint64, launchBufSize/8)
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), launchBufSize)
		packLaunchConfig(buf, cfg, cfg.Stream.handle(), uintptr(unsafe.Pointer(&buf[launchAttrOffsetInBuf])))
		err := invoke(&cuOccupancyMaxActiveClusters, uintptr(unsafe.Pointer(&n)), f.h, uintptr(unsafe.Pointer(&words[0])))
		runtime.KeepAlive(words)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cu: max active clusters %q cluster %v block %v smem %d: %w", f.name, cfg.Cluster, cfg.Block, cfg.SharedMem, err)
	}
	return int(n), nil
}
