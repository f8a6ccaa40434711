//go:build gpu

package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
	"github.com/swigen/swigen/runtime/launch"
)

// launchRequest is what TestLaunchFromFiles reads from
// $SWIGEN_LAUNCH_DIR/request.json.
type launchRequest struct {
	Manifest string         `json:"manifest"`
	Cubin    string         `json:"cubin"`
	Sizes    manifest.Sizes `json:"sizes"`
}

// TestLaunchFromFiles launches one kernel through runtime/launch as files
// describe, for the Python runtime's bitwise check
// (python/tests/gpu/test_bitwise.py): $SWIGEN_LAUNCH_DIR holds
// request.json and in_<buffer>.bin for each input buffer; every other
// buffer of the manifest is allocated, poisoned, and written back as
// out_<buffer>.bin after the launch. Skipped without the variable.
func TestLaunchFromFiles(t *testing.T) {
	dir := os.Getenv("SWIGEN_LAUNCH_DIR")
	if dir == "" {
		t.Skip("SWIGEN_LAUNCH_DIR not set (python/tests/gpu/test_bitwise.py sets it)")
	}
	d := openDevice(t)
	var req launchRequest
	b, err := os.ReadFile(filepath.Join(dir, "request.json"))
	if err == nil {
		err = json.Unmarshal(b, &req)
	}
	if err != nil {
		t.Fatal(err)
	}
	var man manifest.Manifest
	if b, err = os.ReadFile(req.Manifest); err == nil {
		err = json.Unmarshal(b, &man)
	}
	if err != nil {
		t.Fatal(err)
	}
	cubin, err := os.ReadFile(req.Cubin)
	if err != nil {
		t.Fatal(err)
	}
	k, err := launch.Load(d.ctx, d.ctx.Device(), cubin, man)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	bufs := d.ctx.NewBuffers()
	defer bufs.Free()
	call := launch.Call{Sizes: req.Sizes, Buffers: map[string]cu.DevicePtr{}}
	var outs []manifest.Buffer
	for _, buf := range man.Buffers {
		n, err := bufferBytes(buf, req.Sizes)
		if err != nil {
			t.Fatal(err)
		}
		p, err := bufs.Alloc(int(n))
		if err != nil {
			t.Fatal(err)
		}
		call.Buffers[buf.Name] = p
		in, err := os.ReadFile(filepath.Join(dir, "in_"+buf.Name+".bin"))
		switch {
		case err == nil && int64(len(in)) == n:
			err = d.ctx.MemcpyHtoD(p, in)
		case err == nil:
			t.Fatalf("in_%s.bin: %d bytes, the buffer has %d", buf.Name, len(in), n)
		case os.IsNotExist(err):
			outs = append(outs, buf)
			err = d.ctx.MemsetD16(p, num.Poison(man.Config.DType), uint64(n/2))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	plan, err := k.Plan(call)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Launch(); err != nil {
		t.Fatal(err)
	}
	if err := plan.Sync(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	for _, buf := range outs {
		n, _ := bufferBytes(buf, req.Sizes)
		raw := make([]byte, n)
		if err := d.ctx.MemcpyDtoH(raw, call.Buffers[buf.Name]); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "out_"+buf.Name+".bin"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bufferBytes is the size of a 16-bit buffer of the manifest at sizes s.
func bufferBytes(b manifest.Buffer, s manifest.Sizes) (int64, error) {
	n := int64(2)
	for _, e := range b.Shape {
		v, err := e.Eval(s)
		if err != nil {
			return 0, fmt.Errorf("buffer %s: %w", b.Name, err)
		}
		n *= v
	}
	return n, nil
}
