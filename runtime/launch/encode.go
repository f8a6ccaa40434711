package launch

import "github.com/swigen/swigen/runtime/cu"

// encodeTiled encodes one tensor map of k's launches through the driver,
// or through k.encode where a test recorder is installed.
func (k *Kernel) encodeTiled(p cu.TensorMapParams, name string) (*cu.TensorMap, error) {
	if k.encode != nil {
		return k.encode(p, name)
	}
	return k.ctx.EncodeTiled(p, name)
}
