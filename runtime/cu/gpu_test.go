//go:build gpu

package cu

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// testPTX holds hand-written kernels for sm_90 (PTX 8.0, so the CUDA 12.x
// and 13.x drivers both JIT it).
const testPTX = `
.version 8.0
.target sm_90
.address_size 64

// add_one(float *data, unsigned n): data[i] += 1 for i < n.
.visible .entry add_one(
	.param .u64 p_data,
	.param .u32 p_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [p_data];
	ld.param.u32 %r1, [p_n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	add.f32 %f2, %f1, 0f3F800000;
	st.global.f32 [%rd4], %f2;
DONE:
	ret;
}

// cluster_info(unsigned *out): out[ctaid.x] = cluster_ctarank
// | cluster_nctarank << 8 | nclusterid.x << 16. .explicitcluster makes a
// launch without cluster dimensions fail, so a pass proves the launch
// attribute reached the driver.
.visible .entry cluster_info(
	.param .u64 p_out
)
.explicitcluster
{
	.reg .pred %p<2>;
	.reg .b32 %r<9>;
	.reg .b64 %rd<4>;

	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra CDONE;
	ld.param.u64 %rd1, [p_out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %cluster_ctarank;
	mov.u32 %r4, %cluster_nctarank;
	mov.u32 %r5, %nclusterid.x;
	shl.b32 %r6, %r4, 8;
	or.b32 %r7, %r3, %r6;
	shl.b32 %r6, %r5, 16;
	or.b32 %r8, %r7, %r6;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r8;
CDONE:
	ret;
}

// spin(unsigned long long ns): busy-waits ns nanoseconds of %globaltimer.
.visible .entry spin(
	.param .u64 p_ns
)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [p_ns];
	mov.u64 %rd2, %globaltimer;
	add.u64 %rd3, %rd2, %rd1;
SPIN:
	mov.u64 %rd4, %globaltimer;
	setp.lt.u64 %p1, %rd4, %rd3;
	@%p1 bra SPIN;
	ret;
}

// tma_load(const __grid_constant__ CUtensorMap tmap, int c0, int c1,
// unsigned *out, int nwords): thread 0 loads the box at (c0, c1) into
// shared memory with TMA; all threads then copy nwords words of it to out.
.visible .entry tma_load(
	.param .align 128 .b8 p_tmap[128],
	.param .u32 p_c0,
	.param .u32 p_c1,
	.param .u64 p_out,
	.param .u32 p_nwords
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.shared .align 1024 .b8 smem[16384];
	.shared .align 8 .u64 bar;

	mov.b64 %rd1, p_tmap;
	ld.param.u32 %r1, [p_c0];
	ld.param.u32 %r2, [p_c1];
	ld.param.u64 %rd2, [p_out];
	ld.param.u32 %r3, [p_nwords];
	mov.u32 %r4, bar;
	mov.u32 %r5, smem;
	mov.u32 %r6, %tid.x;
	setp.ne.u32 %p1, %r6, 0;
	@%p1 bra ISSUED;
	mbarrier.init.shared::cta.b64 [%r4], 1;
	fence.proxy.async.shared::cta;
	shl.b32 %r7, %r3, 2;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r4], %r7;
	cvta.param.u64 %rd3, %rd1;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd3, {%r1, %r2}], [%r4];
ISSUED:
	bar.sync 0;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], 0;
	@!%p2 bra WAIT;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r8, %ntid.x;
COPY:
	setp.ge.u32 %p3, %r6, %r3;
	@%p3 bra TDONE;
	shl.b32 %r9, %r6, 2;
	add.u32 %r10, %r5, %r9;
	ld.shared.u32 %r11, [%r10];
	mul.wide.u32 %rd5, %r6, 4;
	add.s64 %rd6, %rd4, %rd5;
	st.global.u32 [%rd6], %r11;
	add.u32 %r6, %r6, %r8;
	bra COPY;
TDONE:
	ret;
}
`

type gpuEnv struct {
	ctx *Context
	mod *Module
}

func setupGPU(t *testing.T) gpuEnv {
	t.Helper()
	if err := Init(); err != nil {
		t.Skipf("no CUDA driver: %v", err)
	}
	d, err := GetDevice(0)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	ctx, err := NewContext(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ctx.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	mod, err := ctx.LoadModule([]byte(testPTX))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mod.Unload() })
	return gpuEnv{ctx, mod}
}

func (g gpuEnv) fn(t *testing.T, name string) *Function {
	t.Helper()
	f, err := g.mod.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (g gpuEnv) alloc(t *testing.T, n uint64) DevicePtr {
	t.Helper()
	p, err := g.ctx.MemAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.ctx.MemFree(p) })
	return p
}

func TestGPUDevice(t *testing.T) {
	if !Available() {
		t.Skip("no CUDA device")
	}
	v, err := DriverVersion()
	if err != nil || v < 12000 {
		t.Errorf("DriverVersion() = %d, %v; want >= 12000", v, err)
	}
	d, err := GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	name, err := d.Name()
	if err != nil || name == "" {
		t.Errorf("Name() = %q, %v", name, err)
	}
	mem, err := d.TotalMem()
	if err != nil || mem < 1<<30 {
		t.Errorf("TotalMem() = %d, %v", mem, err)
	}
	t.Logf("device 0: %s, driver %d, %d MiB", name, v, mem>>20)
	for _, a := range []struct {
		attr DeviceAttribute
		name string
		min  int
	}{
		{AttrMultiprocessorCount, "SMs", 1},
		{AttrComputeCapabilityMajor, "cc major", 9},
		{AttrComputeCapabilityMinor, "cc minor", 0},
		{AttrMaxSharedMemoryPerBlockOptin, "smem optin", 48 << 10},
		{AttrL2CacheSize, "L2", 1 << 20},
		{AttrClockRate, "clock kHz", 1},
		{AttrMemoryClockRate, "mem clock kHz", 1},
		{AttrGlobalMemoryBusWidth, "bus bits", 64},
		{AttrClusterLaunch, "cluster launch", 1},
	} {
		v, err := d.Attribute(a.attr)
		if err != nil || v < a.min {
			t.Errorf("Attribute(%s) = %d, %v; want >= %d", a.name, v, err, a.min)
		}
		t.Logf("%s = %d", a.name, v)
	}
	if _, err := GetDevice(1 << 20); !errors.Is(err, ErrNoDevice) {
		t.Errorf("GetDevice(huge) = %v, want ErrNoDevice", err)
	}
	if _, err := GetProcAddress("cuMemAlloc", 12000); err != nil {
		t.Errorf("GetProcAddress(cuMemAlloc) = %v", err)
	}
}

func TestGPUMemory(t *testing.T) {
	g := setupGPU(t)
	const n = 1 << 20
	a, b := g.alloc(t, n), g.alloc(t, n)
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 7)
	}
	if err := g.ctx.MemcpyHtoD(a, src); err != nil {
		t.Fatal(err)
	}
	if err := g.ctx.MemcpyDtoD(b, a, n); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := g.ctx.MemcpyDtoH(got, b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(src, got); diff != "" {
		t.Fatalf("roundtrip differs:\n%.2000s", diff)
	}
	if err := g.ctx.MemsetD8(a, 0xab, 16); err != nil {
		t.Fatal(err)
	}
	if err := g.ctx.MemsetD16(a+16, 0x1234, 8); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 32)
	if err := g.ctx.MemcpyDtoH(head, a); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 16; i++ {
		if head[i] != 0xab || binary.LittleEndian.Uint16(head[16+i/8*2:]) != 0x1234 {
			t.Fatalf("memset result % x", head)
		}
	}
	if _, err := g.ctx.MemAlloc(1 << 50); err == nil {
		t.Error("MemAlloc(1 PiB) succeeded")
	} else {
		var ce *Error
		if !errors.As(err, &ce) || ce.Code != ErrorOutOfMemory || ce.Name != "CUDA_ERROR_OUT_OF_MEMORY" {
			t.Errorf("MemAlloc(1 PiB) = %v, want CUDA_ERROR_OUT_OF_MEMORY", err)
		}
	}
}

func TestGPULaunchAndEvents(t *testing.T) {
	g := setupGPU(t)
	f := g.fn(t, "add_one")
	for _, a := range []FunctionAttribute{FuncAttrNumRegs, FuncAttrMaxThreadsPerBlock, FuncAttrSharedSizeBytes, FuncAttrLocalSizeBytes} {
		v, err := f.Attribute(a)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("add_one attribute %d = %d", a, v)
	}
	if err := f.SetMaxDynamicSharedMemory(100 << 10); err != nil {
		t.Fatal(err)
	}
	const n = 100003
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	hb := unsafe.Slice((*byte)(unsafe.Pointer(&host[0])), 4*n)
	p := g.alloc(t, 4*n)
	if err := g.ctx.MemcpyHtoD(p, hb); err != nil {
		t.Fatal(err)
	}
	s, err := g.ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	start, _ := g.ctx.NewEvent()
	end, _ := g.ctx.NewEvent()
	defer start.Destroy()
	defer end.Destroy()
	if err := start.Record(s); err != nil {
		t.Fatal(err)
	}
	dptr, count := p, uint32(n)
	cfg := LaunchConfig{Grid: [3]uint32{(n + 255) / 256}, Block: [3]uint32{256}, Stream: s, SharedMem: 64 << 10}
	for i := 0; i < 3; i++ {
		if err := g.ctx.Launch(f, cfg, unsafe.Pointer(&dptr), unsafe.Pointer(&count)); err != nil {
			t.Fatal(err)
		}
	}
	if err := end.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(10*time.Second, "add_one"); err != nil {
		t.Fatal(err)
	}
	if err := end.Synchronize(10*time.Second, "end event"); err != nil {
		t.Fatal(err)
	}
	ms, err := Elapsed(start, end)
	if err != nil || ms <= 0 {
		t.Errorf("Elapsed = %v ms, %v; want > 0", ms, err)
	}
	if err := g.ctx.MemcpyDtoH(hb, p); err != nil {
		t.Fatal(err)
	}
	for i, v := range host {
		if v != float32(i)+3 {
			t.Fatalf("data[%d] = %v, want %v", i, v, float32(i)+3)
		}
	}
	// Default stream, and the Synchronize-everything path.
	if err := g.ctx.Launch(f, LaunchConfig{Grid: [3]uint32{1}, Block: [3]uint32{32}}, unsafe.Pointer(&dptr), unsafe.Pointer(&count)); err != nil {
		t.Fatal(err)
	}
	if err := g.ctx.Synchronize(10*time.Second, "add_one default stream"); err != nil {
		t.Fatal(err)
	}
	// Nested Do runs inline instead of deadlocking.
	if err := g.ctx.Do(func() error { return g.ctx.MemsetD8(p, 0, 4) }); err != nil {
		t.Fatal(err)
	}
	if _, err := g.mod.Function("no_such_kernel"); err == nil {
		t.Error("Function(no_such_kernel) succeeded")
	}
	if err := g.ctx.Launch(f, LaunchConfig{Grid: [3]uint32{1}, Block: [3]uint32{4096}}, unsafe.Pointer(&dptr), unsafe.Pointer(&count)); err == nil {
		t.Error("launch with 4096 threads per block succeeded")
	}
}

func TestGPUClusterLaunch(t *testing.T) {
	g := setupGPU(t)
	f := g.fn(t, "cluster_info")
	const ctas = 8
	out := g.alloc(t, 4*ctas)
	if err := g.ctx.MemsetD8(out, 0xff, 4*ctas); err != nil {
		t.Fatal(err)
	}
	cfg := LaunchConfig{Grid: [3]uint32{ctas}, Block: [3]uint32{32}, Cluster: [3]uint32{2}}
	if err := g.ctx.Launch(f, cfg, unsafe.Pointer(&out)); err != nil {
		t.Fatal(err)
	}
	if err := g.ctx.Synchronize(10*time.Second, "cluster_info"); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4*ctas)
	if err := g.ctx.MemcpyDtoH(raw, out); err != nil {
		t.Fatal(err)
	}
	var got, want []uint32
	for i := 0; i < ctas; i++ {
		got = append(got, binary.LittleEndian.Uint32(raw[4*i:]))
		want = append(want, uint32(i%2)|2<<8|(ctas/2)<<16)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cluster rank|size<<8|nclusters<<16 per CTA (-want +got):\n%s", diff)
	}
	// .explicitcluster: the same kernel without a cluster must fail.
	cfg.Cluster = [3]uint32{}
	if err := g.ctx.Launch(f, cfg, unsafe.Pointer(&out)); err == nil {
		if err := g.ctx.Synchronize(10*time.Second, "cluster_info without cluster"); err == nil {
			t.Error("explicit-cluster kernel launched without cluster dimensions succeeded")
		}
	}
}

func TestGPUTensorMapLoad(t *testing.T) {
	g := setupGPU(t)
	f := g.fn(t, "tma_load")
	const rows, cols = 64, 256 // bf16-sized (uint16) elements, row-major
	host := make([]uint16, rows*cols)
	for i := range host {
		host[i] = uint16(i)
	}
	gp := g.alloc(t, 2*rows*cols)
	if err := g.ctx.MemcpyHtoD(gp, unsafe.Slice((*byte)(unsafe.Pointer(&host[0])), 2*len(host))); err != nil {
		t.Fatal(err)
	}
	const boxC, boxR = 64, 16
	const nwords = boxC * boxR * 2 / 4
	out := g.alloc(t, 4*nwords)
	for _, sw := range []Swizzle{SwizzleNone, Swizzle128B} {
		t.Run(sw.String(), func(t *testing.T) {
			tm, err := g.ctx.EncodeTiled(TensorMapParams{
				DType: TensorBfloat16, Rank: 2, Global: gp,
				Dims: [5]uint64{cols, rows}, Strides: [4]uint64{2 * cols},
				Box: [5]uint32{boxC, boxR}, Swizzle: sw,
			}, "X")
			if err != nil {
				t.Fatal(err)
			}
			c0, c1, nw := int32(64), int32(16), int32(nwords)
			if err := g.ctx.Launch(f, LaunchConfig{Grid: [3]uint32{1}, Block: [3]uint32{128}},
				tm.Ptr(), unsafe.Pointer(&c0), unsafe.Pointer(&c1), unsafe.Pointer(&out), unsafe.Pointer(&nw)); err != nil {
				t.Fatal(err)
			}
			if err := g.ctx.Synchronize(10*time.Second, "tma_load"); err != nil {
				t.Fatal(err)
			}
			got := make([]uint16, boxC*boxR)
			if err := g.ctx.MemcpyDtoH(unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), 2*len(got)), out); err != nil {
				t.Fatal(err)
			}
			want := make([]uint16, boxC*boxR)
			for r := 0; r < boxR; r++ {
				for c := 0; c < boxC; c++ {
					dst := r*boxC + c
					if sw == Swizzle128B {
						// 16-byte chunk j of 128-byte row r lands at chunk j ^ (r % 8).
						chunk, within := c/8, c%8
						dst = r*boxC + (chunk^(r%8))*8 + within
					}
					want[dst] = host[(int(c1)+r)*cols+int(c0)+c]
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("TMA box (-want +got):\n%.3000s", diff)
			}
		})
	}
	// The driver rejects what validation cannot see: none here, but a bad
	// encode must return an error, not crash.
	if _, err := g.ctx.EncodeTiled(TensorMapParams{DType: TensorBfloat16, Rank: 2, Global: gp,
		Dims: [5]uint64{cols, rows}, Strides: [4]uint64{2 * cols}, Box: [5]uint32{boxC, 0}}, "bad"); !errors.Is(err, ErrInvalidTensorMap) {
		t.Errorf("EncodeTiled(box 0) = %v, want ErrInvalidTensorMap", err)
	}
}

// TestGPUSynchronizeTimeout runs last in file order: it leaves its own
// Context unusable (other tests use their own Contexts).
func TestGPUSynchronizeTimeout(t *testing.T) {
	g := setupGPU(t)
	f := g.fn(t, "spin")
	ns := uint64(700 * time.Millisecond)
	if err := g.ctx.Launch(f, LaunchConfig{Grid: [3]uint32{1}, Block: [3]uint32{1}}, unsafe.Pointer(&ns)); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	err := g.ctx.Synchronize(50*time.Millisecond, `kernel "spin"`)
	var te *TimeoutError
	if !errors.As(err, &te) || te.What != `kernel "spin"` || te.After != 50*time.Millisecond {
		t.Fatalf("Synchronize = %v, want *TimeoutError", err)
	}
	if el := time.Since(begin); el > 500*time.Millisecond {
		t.Errorf("timeout took %v, want about 50ms", el)
	}
	if _, err := g.ctx.MemAlloc(16); !errors.As(err, &te) {
		t.Errorf("MemAlloc after timeout = %v, want the TimeoutError", err)
	}
	time.Sleep(time.Second) // let the spin kernel end before other tests run
}
