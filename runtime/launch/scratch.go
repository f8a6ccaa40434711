package launch

import "github.com/swigen/swigen/runtime/cu"

// scratch is device memory a launcher owns and callers never pass: one
// buffer per stream and size, allocated the first time a launch on that
// stream needs that size and the same memory for every later one, until
// free. Plans keep their pointers, so nothing is freed earlier. Launches on
// one stream run one after the other and may share a buffer; launches on
// two streams may overlap, so each stream gets its own. The owner's mutex
// guards it.
type scratch map[scratchKey]cu.DevicePtr

type scratchKey struct {
	stream *cu.Stream
	bytes  int64
}

// get returns the buffer of key, allocating it with alloc the first time.
func (s *scratch) get(key scratchKey, alloc func() (cu.DevicePtr, error)) (cu.DevicePtr, error) {
	if p, ok := (*s)[key]; ok {
		return p, nil
	}
	p, err := alloc()
	if err != nil {
		return 0, err
	}
	if *s == nil {
		*s = scratch{}
	}
	(*s)[key] = p
	return p, nil
}

// free releases every buffer with release (nil where a test's allocator
// gave them: nothing to release), empties s and returns the first error.
func (s scratch) free(release func(cu.DevicePtr) error) error {
	var first error
	for key, p := range s {
		if release != nil {
			if err := release(p); err != nil && first == nil {
				first = err
			}
		}
		delete(s, key)
	}
	return first
}
