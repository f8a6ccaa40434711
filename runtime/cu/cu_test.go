package cu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestInitMissingLibrary(t *testing.T) {
	err := initDriver([]string{"libswigen-no-such-cuda.so.1"})
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("initDriver(missing) = %v, want an error wrapping ErrNoDriver", err)
	}
	if !strings.Contains(err.Error(), "libswigen-no-such-cuda.so.1") {
		t.Errorf("error %q does not name the library it tried", err)
	}
	if n := strings.Count(err.Error(), "cu:"); n != 1 {
		t.Errorf("error %q has %d \"cu:\" prefixes, want 1", err, n)
	}
}

// TestInitMissingLibraryReason checks that the dlerror message reaches the
// error every time: it is thread-local, so reading it on another OS thread
// than the failing dlopen's gives "" (seen as "tried libcuda.so.1: ;").
// Many goroutines at once make a thread switch between the two calls likely
// if the lock were missing.
func TestInitMissingLibraryReason(t *testing.T) {
	const lib = "libswigen-no-such-cuda.so.1"
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, _, err := openLibrary([]string{lib, lib}); err != nil && errs[i] == nil {
					msg := err.Error()
					if strings.Contains(msg, lib+": dlopen failed") || strings.Contains(msg, lib+": ;") || strings.Contains(msg, lib+": )") ||
						runtime.GOOS == "linux" && strings.Count(msg, "cannot open shared object") != 2 {
						errs[i] = err
					}
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("dlopen failure without its dlerror reason: %v", err)
		}
	}
}

func TestInitWithoutDriver(t *testing.T) {
	err := Init()
	if err == nil {
		t.Skip("a CUDA driver is installed here; the no-driver path is covered by TestInitMissingLibrary")
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Init() = %v, want an error wrapping ErrNoDriver", err)
	}
	if err2 := Init(); err2 != err {
		t.Errorf("second Init() = %v, want the first call's error %v", err2, err)
	}
	if Available() {
		t.Error("Available() = true without a driver")
	}
	// Calls after a failed Init must return errors, never panic.
	if _, err := Device(0).Name(); !errors.Is(err, ErrNoDriver) {
		t.Errorf("Device(0).Name() = %v, want ErrNoDriver", err)
	}
	if _, err := NewContext(0); !errors.Is(err, ErrNoDriver) {
		t.Errorf("NewContext(0) = %v, want ErrNoDriver", err)
	}
	if _, err := DeviceCount(); !errors.Is(err, ErrNoDriver) {
		t.Errorf("DeviceCount() = %v, want ErrNoDriver", err)
	}
}

// TestBindMissingSymbol loads libc as if it were the driver: binding must
// fail with an error naming the first missing entry point, not panic.
func TestBindMissingSymbol(t *testing.T) {
	before := cuInit.addr // nonzero when a real driver was bound earlier
	err := initDriver([]string{"libc.so.6"})
	if err == nil {
		t.Fatal("initDriver(libc.so.6) succeeded")
	}
	if !errors.Is(err, ErrMissingSymbol) || errors.Is(err, ErrNoDriver) {
		t.Fatalf("initDriver(libc.so.6) = %v, want ErrMissingSymbol", err)
	}
	if !strings.Contains(err.Error(), "cuInit") {
		t.Errorf("error %q does not name the missing symbol cuInit", err)
	}
	if cuInit.addr != before {
		t.Error("a failed bind changed the bound symbols")
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&Error{Op: "cuMemAlloc_v2", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY"}, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2)"},
		{check("cuLaunchKernel", 700), "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (700)"},
		{check("cuModuleLoadData", 218), "cuModuleLoadData: CUDA_ERROR_INVALID_PTX (218)"},
		{check("cuFoo", 12345), "cuFoo: CUresult(12345) (12345)"},
		{&Error{Op: "cuInit", Code: 100}, "cuInit: CUDA_ERROR_NO_DEVICE (100)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if check("cuInit", Success) != nil {
		t.Error("check(Success) != nil")
	}
	if !errors.Is(check("cuInit", ErrorNoDevice), ErrNoDevice) {
		t.Error("CUDA_ERROR_NO_DEVICE does not match ErrNoDevice")
	}
	if errors.Is(check("cuInit", ErrorOutOfMemory), ErrNoDevice) {
		t.Error("CUDA_ERROR_OUT_OF_MEMORY matches ErrNoDevice")
	}
	var ce *Error
	if !errors.As(errors.Join(errors.New("x"), check("cuMemFree_v2", 1)), &ce) || ce.Code != ErrorInvalidValue {
		t.Errorf("errors.As did not find *Error with code 1: %+v", ce)
	}
}

func TestTimeoutErrorMessage(t *testing.T) {
	e := &TimeoutError{What: `kernel "swiglu_bwd"`, After: 5e9}
	for _, want := range []string{`kernel "swiglu_bwd"`, "5s", "unusable", "process must exit"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("TimeoutError %q lacks %q", e.Error(), want)
		}
	}
}

func TestTensorMapAlignment(t *testing.T) {
	var keep []*TensorMap
	for i := 0; i < 200; i++ {
		tm := newTensorMap()
		keep = append(keep, tm)
		if p := uintptr(tm.Ptr()); p%64 != 0 {
			t.Fatalf("Ptr() = %#x, not 64-byte aligned", p)
		}
		if got := len(tm.Bytes()); got != TensorMapSize {
			t.Fatalf("len(Bytes()) = %d, want %d", got, TensorMapSize)
		}
	}
	// A by-value copy keeps its contents at its own aligned offset. Array
	// elements are 200 bytes apart, so they sit at different offsets mod 64.
	src := newTensorMap()
	for i := range src.Bytes() {
		src.Bytes()[i] = byte(i)
	}
	copies := make([]TensorMap, 8)
	for i := range copies {
		copies[i] = *src
		if p := uintptr(copies[i].Ptr()); p%64 != 0 {
			t.Fatalf("copies[%d].Ptr() = %#x, not 64-byte aligned", i, p)
		}
		if diff := cmp.Diff(src.Bytes(), copies[i].Bytes()); diff != "" {
			t.Fatalf("copies[%d] descriptor differs (-want +got):\n%s", i, diff)
		}
	}
	_ = keep
}

func TestPackLaunchConfig(t *testing.T) {
	words := make([]uint64, launchBufSize/8)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), launchBufSize)
	attrAddr := uintptr(unsafe.Pointer(&buf[launchConfigSize]))
	e := binary.NativeEndian
	u32 := func(off int) uint32 { return e.Uint32(buf[off:]) }
	u64 := func(off int) uint64 { return e.Uint64(buf[off:]) }

	tests := []struct {
		name string
		cfg  LaunchConfig
		want map[string]uint64
	}{{
		name: "cluster",
		cfg:  LaunchConfig{Grid: [3]uint32{132, 2, 0}, Block: [3]uint32{384}, SharedMem: 200 << 10, Cluster: [3]uint32{2}},
		want: map[string]uint64{
			"gridDimX@0": 132, "gridDimY@4": 2, "gridDimZ@8": 1,
			"blockDimX@12": 384, "blockDimY@16": 1, "blockDimZ@20": 1,
			"sharedMemBytes@24": 200 << 10, "pad@28": 0, "hStream@32": 0xabc0,
			"attrs@40": uint64(attrAddr), "numAttrs@48": 1,
			"attr.id@56": 4, "attr.pad@60": 0, "clusterDim.x@64": 2, "clusterDim.y@68": 1, "clusterDim.z@72": 1,
		},
	}, {
		name: "no cluster",
		cfg:  LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 4, 2}},
		want: map[string]uint64{
			"gridDimX@0": 1, "gridDimY@4": 1, "gridDimZ@8": 1,
			"blockDimX@12": 32, "blockDimY@16": 4, "blockDimZ@20": 2,
			"sharedMemBytes@24": 0, "pad@28": 0, "hStream@32": 0xabc0,
			"attrs@40": 0, "numAttrs@48": 0,
			"attr.id@56": 0, "attr.pad@60": 0, "clusterDim.x@64": 0, "clusterDim.y@68": 0, "clusterDim.z@72": 0,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range buf {
				buf[i] = 0xff // packLaunchConfig must clear everything it does not set
			}
			packLaunchConfig(buf, tt.cfg, 0xabc0, attrAddr)
			got := map[string]uint64{}
			for k := range tt.want {
				var off int
				name, offs, _ := strings.Cut(k, "@")
				for _, c := range offs {
					off = off*10 + int(c-'0')
				}
				switch name {
				case "hStream", "attrs":
					got[k] = u64(off)
				default:
					got[k] = uint64(u32(off))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CUlaunchConfig bytes (-want +got):\n%s", diff)
			}
			// The rest of the 64-byte attribute value union must be zero.
			for off := 76; off < launchBufSize; off++ {
				if buf[off] != 0 {
					t.Fatalf("byte %d = %#x, want 0", off, buf[off])
				}
			}
		})
	}
	// The Go mirror of the C struct layout agrees with the byte offsets.
	type cLaunchConfig struct {
		grid, block   [3]uint32
		smem          uint32
		stream, attrs uintptr
		numAttrs      uint32
	}
	var c cLaunchConfig
	if got := [4]uintptr{unsafe.Offsetof(c.stream), unsafe.Offsetof(c.attrs), unsafe.Offsetof(c.numAttrs), unsafe.Sizeof(c)}; got != [4]uintptr{offLaunchStream, offLaunchAttrs, offLaunchNumAttrs, launchConfigSize} {
		t.Errorf("Go mirror offsets %v disagree with the packed layout", got)
	}
}

func TestModuleImage(t *testing.T) {
	ptx := []byte(".version 8.0\n.target sm_90\n")
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"ptx gets NUL", ptx, append(append([]byte{}, ptx...), 0)},
		{"ptx with NUL unchanged", append(append([]byte{}, ptx...), 0), append(append([]byte{}, ptx...), 0)},
		{"cubin unchanged", []byte{0x7f, 'E', 'L', 'F', 2, 1}, []byte{0x7f, 'E', 'L', 'F', 2, 1}},
		{"fatbin unchanged", []byte{0x50, 0xed, 0x55, 0xba, 1, 0}, []byte{0x50, 0xed, 0x55, 0xba, 1, 0}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, moduleImage(tt.in)); diff != "" {
			t.Errorf("%s: moduleImage (-want +got):\n%s", tt.name, diff)
		}
	}
	if ptx[len(ptx)-1] == 0 {
		t.Error("moduleImage modified its input")
	}
}

func TestCString(t *testing.T) {
	b := []byte("CUDA_ERROR_NOT_READY\x00junk")
	if got := cString(&b[0]); got != "CUDA_ERROR_NOT_READY" {
		t.Errorf("cString = %q", got)
	}
}

func TestBuffersRejectNegativeSize(t *testing.T) {
	b := (&Context{}).NewBuffers()
	if _, err := b.Alloc(-1); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("Alloc(-1) = %v, want an error naming -1", err)
	}
	b.Free() // nothing allocated: must not touch the driver
}

func TestContextLost(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{check("cuStreamQuery", 719), true},                          // launch failed
		{fmt.Errorf("alloc: %w", check("cuMemAlloc_v2", 700)), true}, // illegal address, wrapped
		{check("cuMemAlloc_v2", 2), false},                           // out of memory: the context survives
		{check("cuLaunchKernel", 701), false},                        // too many resources: nothing ran
		{&TimeoutError{What: "k", After: 1}, false},                  // reported on its own
		{errors.New("cu: something else"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := ContextLost(tt.err); got != tt.want {
			t.Errorf("ContextLost(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
