package bench

import (
	"sync"

	"github.com/swigen/swigen/lab/num"
	"github.com/swigen/swigen/tiling"
)

// randomBlockElems is the size of a Filler's random block: 16M values,
// 32 MB of 16-bit data.
const randomBlockElems = 1 << 24

// randomBlocks keeps the last few encoded random blocks: drawing 16M
// normal values takes a few hundred milliseconds of CPU, which a
// long-lived tune worker would otherwise pay for every candidate it
// times with the same seed.
var randomBlocks struct {
	sync.Mutex
	keys []blockKey
	data [][]byte
}

type blockKey struct {
	dt    tiling.DType
	seed  uint64
	scale float64
}

const keptBlocks = 4

// randomBlock is the encoded block of randomBlockElems normal dt values
// of standard deviation scale drawn with seed. Callers must not modify it.
func randomBlock(dt tiling.DType, seed uint64, scale float64) []byte {
	k := blockKey{dt, seed, scale}
	rb := &randomBlocks
	rb.Lock()
	defer rb.Unlock()
	for i, x := range rb.keys {
		if x == k {
			return rb.data[i]
		}
	}
	raw := num.Encode(dt, num.NewRand(seed).Normal(dt, randomBlockElems, scale))
	rb.keys = append(rb.keys, k)
	rb.data = append(rb.data, raw)
	if len(rb.keys) > keptBlocks {
		rb.keys, rb.data = rb.keys[1:], rb.data[1:]
	}
	return raw
}
