package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPack(t *testing.T) {
	t.Parallel()
	tm := func(n string) Param { return Param{Name: n, Kind: KindTensorMap, Size: 128, Align: 64} }
	i32 := func(n string) Param { return Param{Name: n, Kind: KindI32, Size: 4, Align: 4} }
	desc := func(b byte) []byte { return []byte(strings.Repeat(string(rune(b)), 128)) }
	tests := []struct {
		name    string
		ps      []Param
		args    []Arg
		descs   [][]byte
		want    []int
		size    int
		check   func(b []byte) string
		wantErr string
	}{
		{name: "maps then scalars", ps: []Param{tm("a"), tm("b"), i32("M"), i32("K")},
			args:  []Arg{{Param: "a", Kind: KindTensorMap}, {Param: "b", Kind: KindTensorMap}, {Param: "M", Kind: KindI32, Value: 300}, {Param: "K", Kind: KindI32, Value: -2}},
			descs: [][]byte{desc(1), desc(2)}, want: []int{0, 128, 256, 260}, size: 320,
			check: func(b []byte) string {
				switch {
				case b[0] != 1 || b[127] != 1 || b[128] != 2 || b[255] != 2:
					return "descriptors misplaced"
				case string(b[256:264]) != "\x2c\x01\x00\x00\xfe\xff\xff\xff":
					return "i32s not little-endian at 256 and 260"
				}
				return ""
			}},
		// A map after a scalar starts at the next multiple of 64.
		{name: "scalar then map", ps: []Param{i32("M"), tm("a")},
			args: []Arg{{Param: "M", Kind: KindI32, Value: 1}, {Param: "a", Kind: KindTensorMap}},
			want: []int{0, 64}, size: 192,
			check: func(b []byte) string {
				if b[0] != 1 || b[64] != 0 {
					return "want M at 0 and a zero slot without a descriptor"
				}
				return ""
			}},
		{name: "no params", want: nil, size: 0},
		{name: "wrong size", ps: []Param{{Name: "M", Kind: KindI32, Size: 8, Align: 4}}, args: []Arg{{Param: "M", Kind: KindI32}},
			wantErr: "parameter M: size 8: a i32 is 4 bytes"},
		{name: "bad alignment", ps: []Param{{Name: "M", Kind: KindI32, Size: 4, Align: 3}}, args: []Arg{{Param: "M", Kind: KindI32}},
			wantErr: "parameter M: alignment 3: want a power of two"},
		{name: "argument order", ps: []Param{i32("M"), i32("K")}, args: []Arg{{Param: "K", Kind: KindI32}, {Param: "M", Kind: KindI32}},
			wantErr: "argument 0 is K (i32), parameter 0 is M (i32)"},
		{name: "argument count", ps: []Param{i32("M")}, wantErr: "0 arguments for 1 parameters"},
		// An i32 then a pointer and an i64: each at the next multiple of 8.
		{name: "pointers and i64", ps: []Param{i32("M"), {Name: "ws", Kind: KindWorkspace, Size: 8, Align: 8},
			{Name: "offs", Kind: KindPtr, Size: 8, Align: 8}, {Name: "n", Kind: KindI64, Size: 8, Align: 8}},
			args: []Arg{{Param: "M", Kind: KindI32, Value: 7}, {Param: "ws", Kind: KindWorkspace, Ptr: 0x1122334455667788},
				{Param: "offs", Kind: KindPtr, Ptr: 0xabcd00}, {Param: "n", Kind: KindI64, Value64: -3}},
			want: []int{0, 8, 16, 24}, size: 32,
			check: func(b []byte) string {
				switch {
				case string(b[8:16]) != "\x88\x77\x66\x55\x44\x33\x22\x11":
					return "workspace pointer not little-endian at 8"
				case string(b[16:24]) != "\x00\xcd\xab\x00\x00\x00\x00\x00":
					return "ptr not at 16"
				case string(b[24:32]) != "\xfd\xff\xff\xff\xff\xff\xff\xff":
					return "i64 -3 not at 24"
				}
				return ""
			}},
		{name: "pointer of 4 bytes", ps: []Param{{Name: "p", Kind: KindPtr, Size: 4, Align: 4}}, args: []Arg{{Param: "p", Kind: KindPtr}},
			wantErr: "parameter p: size 4: a ptr is 8 bytes"},
		{name: "unknown kind", ps: []Param{{Name: "p", Kind: "f64", Size: 8, Align: 8}}, args: []Arg{{Param: "p", Kind: "f64"}},
			wantErr: `parameter p: kind "f64": want tensormap, i32, i64, ptr or workspace`},
		{name: "short descriptor", ps: []Param{tm("a")}, args: []Arg{{Param: "a", Kind: KindTensorMap}}, descs: [][]byte{{1}},
			wantErr: "parameter a: a descriptor of 1 bytes: want 128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Pack(tt.ps, tt.args, tt.descs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Pack = %v; want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got.Offsets); d != "" {
				t.Errorf("offsets (-want +got):\n%s", d)
			}
			if len(got.Bytes) != tt.size {
				t.Errorf("size %d, want %d", len(got.Bytes), tt.size)
			}
			if tt.check != nil {
				if msg := tt.check(got.Bytes); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}
