package launch

import (
	"encoding/binary"
	"fmt"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/runtime/cu"
)

// traceBuffer is the trace probe's record buffer (manifest.TraceSymbol).
func (k *Kernel) traceBuffer() (cu.DevicePtr, uint64, error) {
	p, n, err := k.mod.Global(manifest.TraceSymbol)
	if err != nil {
		return 0, 0, fmt.Errorf("launch: %s: trace buffer (only the trace probe has one): %w", k.Man.Name, err)
	}
	return p, n, nil
}

// ClearTrace zeroes the trace probe's record buffer, so that a Trace
// after the next launches holds only their records.
func (k *Kernel) ClearTrace() error {
	p, n, err := k.traceBuffer()
	if err != nil {
		return err
	}
	return k.ctx.MemsetD8(p, 0, n)
}

// Trace reads the trace probe's record buffer back, laid out as the
// manifest's Trace says (bench.ParseTrace). Synchronize first: the buffer is read as the
// last launch left it.
func (k *Kernel) Trace() ([]uint64, error) {
	p, n, err := k.traceBuffer()
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if err := k.ctx.MemcpyDtoH(b, p); err != nil {
		return nil, fmt.Errorf("launch: %s: read trace: %w", k.Man.Name, err)
	}
	w := make([]uint64, n/8)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w, nil
}
