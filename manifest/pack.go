package manifest

import (
	"encoding/binary"
	"fmt"
)

// Packed is one launch's kernel parameters in one buffer, laid out as the
// parameter table says: each parameter at the next multiple of its Align,
// the whole padded to the largest alignment. A loader passes the driver a
// pointer to each parameter's bytes (kernelParams); the driver reads each
// value's size and offset from the cubin, so the buffer's own layout only
// has to hold every value intact, but keeping it the table's makes it
// comparable byte for byte between loaders.
type Packed struct {
	Bytes   []byte
	Offsets []int // each parameter's offset in Bytes, in kernel order
}

// ParamOffsets lays ps out (see Packed) and returns each parameter's offset
// and the buffer's size. A parameter whose size does not match its kind,
// or whose alignment is not a power of two, is an error naming it.
func ParamOffsets(ps []Param) (offsets []int, size int, err error) {
	maxAlign := 1
	for _, p := range ps {
		want, ok := kindSizes[p.Kind]
		if !ok {
			return nil, 0, fmt.Errorf("manifest: parameter %s: kind %q: want %s", p.Name, p.Kind, kindList)
		}
		if p.Size != want {
			return nil, 0, fmt.Errorf("manifest: parameter %s: size %d: a %s is %d bytes", p.Name, p.Size, p.Kind, want)
		}
		if p.Align < 1 || p.Align&(p.Align-1) != 0 {
			return nil, 0, fmt.Errorf("manifest: parameter %s: alignment %d: want a power of two", p.Name, p.Align)
		}
		size = roundUp(size, p.Align)
		offsets = append(offsets, size)
		size += p.Size
		maxAlign = max(maxAlign, p.Align)
	}
	return offsets, roundUp(size, maxAlign), nil
}

func roundUp(n, align int) int { return (n + align - 1) / align * align }

// Pack packs a launch's resolved arguments (Launch.Args, in the order of
// ps) into one buffer: every integer and pointer (Arg.Ptr) little-endian,
// as the GPU reads it, and every tensor map as descs[i], the 128 bytes
// cuTensorMapEncodeTiled wrote for argument i (a nil descs[i], or a nil
// descs, leaves the slot zero).
func Pack(ps []Param, args []Arg, descs [][]byte) (Packed, error) {
	if len(args) != len(ps) {
		return Packed{}, fmt.Errorf("manifest: pack: %d arguments for %d parameters", len(args), len(ps))
	}
	offs, size, err := ParamOffsets(ps)
	if err != nil {
		return Packed{}, err
	}
	buf := make([]byte, size)
	for i, a := range args {
		p := ps[i]
		if a.Param != p.Name || a.Kind != p.Kind {
			return Packed{}, fmt.Errorf("manifest: pack: argument %d is %s (%s), parameter %d is %s (%s)", i, a.Param, a.Kind, i, p.Name, p.Kind)
		}
		slot := buf[offs[i] : offs[i]+p.Size]
		switch p.Kind {
		case KindI32:
			binary.LittleEndian.PutUint32(slot, uint32(a.Value))
		case KindI64:
			binary.LittleEndian.PutUint64(slot, uint64(a.Value64))
		case KindPtr, KindWorkspace:
			binary.LittleEndian.PutUint64(slot, a.Ptr)
		case KindTensorMap:
			if i >= len(descs) || descs[i] == nil {
				continue
			}
			if len(descs[i]) != p.Size {
				return Packed{}, fmt.Errorf("manifest: pack: parameter %s: a descriptor of %d bytes: want %d", p.Name, len(descs[i]), p.Size)
			}
			copy(slot, descs[i])
		}
	}
	return Packed{Bytes: buf, Offsets: offs}, nil
}
