// Package gputest holds the helpers swigen's GPU tests (built with -tags
// gpu and run on a machine with an NVIDIA GPU) share: opening a context and
// a toolchain, skipping with a message where either is missing, and moving
// buffers with cleanup registered on the test.
package gputest

import (
	"testing"
	"time"

	"github.com/swigen/swigen/gen/builder"
	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/runtime/cu"
)

// Open returns a context on device 0 (closed when the test ends) and the
// CUDA toolchain as the runtime's builder; it skips the test when there is
// no driver, device or compiler.
func Open(t testing.TB) (*cu.Context, *builder.Builder) {
	t.Helper()
	if !cu.Available() {
		t.Skip("no CUDA driver or device: GPU tests need an NVIDIA GPU")
	}
	dev, err := cu.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := cu.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctx.Close() })
	tc, err := toolchain.Find(toolchain.FindOptions{})
	if err != nil {
		t.Skipf("no CUDA compiler: %v", err)
	}
	return ctx, builder.New(tc)
}

// Upload copies b to a new device buffer, freed when the test ends.
func Upload(t testing.TB, ctx *cu.Context, b []byte) cu.DevicePtr {
	t.Helper()
	p, err := ctx.MemAlloc(uint64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctx.MemFree(p) })
	if err := ctx.MemcpyHtoD(p, b); err != nil {
		t.Fatal(err)
	}
	return p
}

// Download copies n bytes from p.
func Download(t testing.TB, ctx *cu.Context, p cu.DevicePtr, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if err := ctx.MemcpyDtoH(b, p); err != nil {
		t.Fatal(err)
	}
	return b
}

// Sync waits for the device with a one-minute deadline.
func Sync(t testing.TB, ctx *cu.Context, what string) {
	t.Helper()
	if err := ctx.Synchronize(time.Minute, what); err != nil {
		t.Fatal(err)
	}
}
