package gen_test

// Independent checks of the tensor-core descriptors in the rendered .cu:
// the constants are read back from the kernel source (not from the view or
// the encoders of desc.go) and decoded with bit-field tables transcribed
// here from the PTX ISA. Every expected value is derived from the config
// by the rules the PTX ISA states for the canonical 128-byte-swizzled
// layouts, so a misreading shared by the encoder and its worked-value tests
// (desc_test.go) shows up as a disagreement here.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

// bitField is bits [lo, lo+width) of a descriptor.
type bitField struct {
	name      string
	lo, width uint
}

// wgmmaSmemDesc is the sm_90 wgmma matrix descriptor: PTX ISA 9.7.15.5.1.2.2
// "Matrix Descriptor Format". Bits 14-15, 30-31, 46-48 and 52-61 are not
// listed there; they are named here so that the table covers all 64 bits
// and a descriptor with any of them set fails.
var wgmmaSmemDesc = []bitField{
	{"start", 0, 14},       // matrix-descriptor-encode(start address)
	{"unused14", 14, 2},    //
	{"lbo", 16, 14},        // matrix-descriptor-encode(leading dimension byte offset)
	{"unused30", 30, 2},    //
	{"sbo", 32, 14},        // matrix-descriptor-encode(stride dimension byte offset)
	{"unused46", 46, 3},    //
	{"base_offset", 49, 3}, // matrix base offset
	{"unused52", 52, 10},   //
	{"swizzle", 62, 2},     // 0 none, 1 128-byte, 2 64-byte, 3 32-byte
}

// tcgen05SmemDesc is the sm_100 tcgen05 shared memory descriptor: PTX ISA
// 9.7.16.4.1, Table 40 "Shared memory descriptor layout".
var tcgen05SmemDesc = []bitField{
	{"start", 0, 14},       // matrix-descriptor-encode(matrix start address)
	{"reserved14", 14, 2},  //
	{"lbo", 16, 14},        // matrix-descriptor-encode(leading dimension byte offset or address)
	{"reserved30", 30, 2},  //
	{"sbo", 32, 14},        // matrix-descriptor-encode(stride dimension byte offset)
	{"version", 46, 3},     // fixed constant 0b001
	{"base_offset", 49, 3}, // matrix base offset
	{"lbo_mode", 52, 1},    // 0 relative byte offset, 1 absolute byte address
	{"fixed53", 53, 8},     // fixed constant 0
	{"swizzle", 61, 3},     // 0 none, 1 128-byte with 32-byte atom, 2 128-byte, 4 64-byte, 6 32-byte
}

// tcgen05InstrDesc is the instruction descriptor of tcgen05.mma.kind::f16:
// PTX ISA 9.7.16.4.2, Table 42 "Instruction descriptor format for
// .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8", column
// ".kind::f16".
var tcgen05InstrDesc = []bitField{
	{"sparsity_selector", 0, 2}, //
	{"sparsity", 2, 1},          // dense 0
	{"saturate", 3, 1},          // integer types only: 0
	{"d_format", 4, 2},          // F16 0, F32 1
	{"reserved6", 6, 1},         //
	{"a_format", 7, 3},          // F16 0, BF16 1
	{"b_format", 10, 3},         // F16 0, BF16 1
	{"negate_a", 13, 1},         //
	{"negate_b", 14, 1},         //
	{"transpose_a", 15, 1},      // 0 K-major, 1 M-major
	{"transpose_b", 16, 1},      // 0 K-major, 1 N-major
	{"n_shr3", 17, 6},           // N >> 3
	{"reserved23", 23, 1},       //
	{"m_shr4", 24, 5},           // M >> 4
	{"reserved29", 29, 1},       //
	{"max_shift", 30, 2},        // .ws B-reuse shift: 0
}

// The encodings the checks expect, from the same PTX ISA tables.
const (
	wgmmaSwizzle128B   = 1 // 9.7.15.5.1.2.2
	tcgen05Swizzle128B = 2 // Table 40
	tcgen05Version     = 1 // Table 40, bits 46-48 = 0b001
	formatF32          = 1 // Table 42, dtype
	formatF16          = 0 // Table 42, atype/btype
	formatBF16         = 1
	// swizzleAtom is the 128-byte swizzle pattern: 8 rows of 128 bytes,
	// repeating at 1024-byte boundaries (Table 41 / the wgmma table of
	// pattern start addresses); a pattern that starts there needs base
	// offset 0.
	swizzleRow     = 128
	swizzlePattern = 1024
)

// decode splits v into the named fields of table.
func decode(v uint64, table []bitField) map[string]uint64 {
	out := make(map[string]uint64, len(table))
	for _, f := range table {
		out[f.name] = v >> f.lo & (1<<f.width - 1)
	}
	return out
}

// TestRenderedDescriptorTables: each transcribed table covers its
// descriptor's bits exactly once, so no bit escapes the checks.
func TestRenderedDescriptorTables(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		table []bitField
		bits  uint
	}{{"wgmma smem", wgmmaSmemDesc, 64}, {"tcgen05 smem", tcgen05SmemDesc, 64}, {"tcgen05 instr", tcgen05InstrDesc, 32}} {
		next := uint(0)
		for _, f := range tt.table {
			if f.lo != next || f.width == 0 {
				t.Errorf("%s: field %s starts at bit %d, want %d", tt.name, f.name, f.lo, next)
			}
			next = f.lo + f.width
		}
		if next != tt.bits {
			t.Errorf("%s: fields cover %d bits, want %d", tt.name, next, tt.bits)
		}
	}
}

// renderedSource is the kernel source with the helpers that read its
// constants back.
type renderedSource struct{ src string }

var (
	reDescConst = regexp.MustCompile(`static constexpr sw_u(?:32|64) (k\w*Desc\w*) = `)
	reWgmma     = regexp.MustCompile(`wgmma\.mma_async\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.(\w+)\.(\w+)\.(\w+) "\s*"\{[^}]*\}, %(\d+), %(\d+), p, 1, 1, (\d), (\d);`)
	reTcgen05   = regexp.MustCompile(`tcgen05\.mma\.cta_group::(\d)\.kind::(\w+) \[%0\], %1, %2, %3, p;`)
)

// scalar returns the value of a `static constexpr <type> name = v;`
// constant (decimal or hex, optional ull/u suffix).
func (r renderedSource) scalar(name string) (uint64, error) {
	re := regexp.MustCompile(`static constexpr (?:sw_u32|sw_u64|int) ` + name + ` = (0x[0-9a-fA-F]+|\d+)(?:ull|u)?;`)
	m := re.FindAllStringSubmatch(r.src, -1)
	if len(m) != 1 {
		return 0, fmt.Errorf("constant %s: found %d definitions, want 1", name, len(m))
	}
	v, err := strconv.ParseUint(m[0][1], 0, 64)
	if err != nil {
		return 0, fmt.Errorf("constant %s = %q: %v", name, m[0][1], err)
	}
	return v, nil
}

// array returns the elements of a `static __device__ constexpr <type>
// name[n] = { ... };` constant array.
func (r renderedSource) array(name string) ([]int, error) {
	re := regexp.MustCompile(`static __device__ constexpr (?:sw_u32|int) ` + name + `\[\w+\] = \{([^}]*)\};`)
	m := re.FindAllStringSubmatch(r.src, -1)
	if len(m) != 1 {
		return nil, fmt.Errorf("array %s: found %d definitions, want 1", name, len(m))
	}
	var out []int
	for _, f := range strings.Split(m[0][1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("array %s: element %q: %v", name, f, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// problems collects what a check found wrong.
type problems []string

func (p *problems) addf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// want compares one decoded field with its expected value.
func (p *problems) want(what string, got, want uint64) {
	if got != want {
		p.addf("%s = %d (%#x), want %d (%#x)", what, got, got, want, want)
	}
}

// operandWant is what the config says about one GEMM operand's tile in
// shared memory: its rows along M or N per CTA, its major, and from
// those the k16 start offsets and the descriptor's LBO and SBO in bytes.
type operandWant struct {
	name     string
	rows     int
	mnMajor  bool
	k16      []int
	lbo, sbo int
}

// operandLayout derives an operand's smem tile from the config: TileK
// 16-bit elements along K in 128-byte swizzle rows.
//
// K-major (K contiguous): 64 k per 128-byte row, one row per M/N index;
// an atom of 64 k holds rows*128 bytes, so k16 step k starts at
// (k/4)*rows*128 + (k%4)*32. Canonical layout ((8,m),(T,2k)):((8T,SBO),(1,T)):
// SBO is the step from 8 rows to the next 8 (8*128 = 1024 bytes); LBO is
// "not used, assumed to be 1" (9.7.16.3.1.1 and 9.7.15.5.1.2.1.1), encoded
// 1, i.e. 16 bytes.
//
// MN-major (M or N contiguous): 64 MN elements per 128-byte row, one row
// per k; a slab of 64 MN elements holds TileK rows, so k16 step k starts
// at k*16*128. Canonical layout ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)): LBO
// is the step from one slab to the next (TileK*128 bytes), SBO the step
// from 8 k-rows to the next 8 (1024 bytes).
func operandLayout(name string, rows, tileK int, mnMajor bool) operandWant {
	o := operandWant{name: name, rows: rows, mnMajor: mnMajor, sbo: 8 * swizzleRow}
	for k := 0; k < tileK/16; k++ {
		if mnMajor {
			o.k16 = append(o.k16, k*16*swizzleRow)
		} else {
			o.k16 = append(o.k16, (k/4)*rows*swizzleRow+(k%4)*32)
		}
	}
	o.lbo = 16
	if mnMajor {
		o.lbo = tileK * swizzleRow
	}
	return o
}

// checkSmemDesc decodes one rendered smem descriptor constant and checks
// every field against op. version and lboMode are checked on sm_100 only.
func (p *problems) checkSmemDesc(r renderedSource, constName string, op operandWant, sm100 bool) {
	v, err := r.scalar(constName)
	if err != nil {
		p.addf("%v", err)
		return
	}
	table, swz := wgmmaSmemDesc, uint64(wgmmaSwizzle128B)
	if sm100 {
		table, swz = tcgen05SmemDesc, tcgen05Swizzle128B
	}
	f := decode(v, table)
	what := func(field string) string { return constName + "." + field }
	// The start address is added at run time (checkStartAddress); the
	// constant holds the other fields only.
	p.want(what("start"), f["start"], 0)
	p.want(what("lbo")+" (bytes >> 4)", f["lbo"], uint64(op.lbo>>4))
	p.want(what("sbo")+" (bytes >> 4)", f["sbo"], uint64(op.sbo>>4))
	p.want(what("base_offset"), f["base_offset"], 0)
	p.want(what("swizzle"), f["swizzle"], swz)
	if sm100 {
		p.want(what("version"), f["version"], tcgen05Version)
		p.want(what("lbo_mode"), f["lbo_mode"], 0)
		p.want(what("fixed53"), f["fixed53"], 0)
		p.want(what("reserved14"), f["reserved14"], 0)
		p.want(what("reserved30"), f["reserved30"], 0)
	} else {
		for _, u := range []string{"unused14", "unused30", "unused46", "unused52"} {
			p.want(what(u), f[u], 0)
		}
	}
}

// checkStartAddresses checks the run-time start address: the stage base is
// passed through matrix-descriptor-encode, (x & 0x3FFFF) >> 4, and ORed
// into the constant; the per-k16 offsets are the config's; and every
// offset keeps the swizzle pattern at a 1024-byte boundary, which is what
// base offset 0 requires.
func (p *problems) checkStartAddresses(r renderedSource, a, b operandWant, stageBytes, bOff int) {
	const encode = `const sw_u32 sd = ((smem + s * kStageBytes) & 0x3FFFFu) >> 4;`
	if n := strings.Count(r.src, "const sw_u32 sd = "); n == 0 || n != strings.Count(r.src, encode) {
		p.addf("the stage base is not matrix-descriptor-encoded as %q everywhere (%d definitions of sd)", encode, n)
	}
	for _, use := range []struct{ desc, re string }{
		{"kDescA", `kDescA \| \(sw_u64\)\(sd \+ (?:\(a_off >> 4\) \+ \(\(kAMB\[mb\] \+ kAK16\[k\]\) >> 4\)|\(kAK16\[k\] >> 4\))\)`},
		{"kDescB", `kDescB \| \(sw_u64\)\(sd \+ \(\(kBOff \+ kBK16\[k\]\) >> 4\)\)`},
	} {
		all := strings.Count(r.src, use.desc+" |")
		if ok := len(regexp.MustCompile(use.re).FindAllString(r.src, -1)); all == 0 || ok != all {
			p.addf("%s: %d of %d uses add the encoded start address as expected", use.desc, ok, all)
		}
	}
	got, err := r.scalar("kStageBytes")
	if err != nil {
		p.addf("%v", err)
	} else {
		p.want("kStageBytes", got, uint64(stageBytes))
	}
	if got, err := r.scalar("kBOff"); err != nil {
		p.addf("%v", err)
	} else {
		p.want("kBOff (the A tile's bytes)", got, uint64(bOff))
	}
	for _, op := range []struct {
		arr string
		o   operandWant
	}{{"kAK16", a}, {"kBK16", b}} {
		k16, err := r.array(op.arr)
		if err != nil {
			p.addf("%v", err)
			continue
		}
		if d := cmp.Diff(op.o.k16, k16); d != "" {
			p.addf("%s: k16 start offsets (-want +got):\n%s", op.arr, d)
		}
		for _, off := range k16 {
			// Base offset 0 holds while the swizzle pattern a k16 step
			// reads still starts at the 1024-byte boundary below it:
			// MN-major steps are whole patterns; K-major steps move 32
			// bytes along the pattern's first 128-byte row.
			in := off % swizzlePattern
			if op.o.mnMajor && in != 0 || !op.o.mnMajor && (in >= swizzleRow || in%32 != 0) {
				p.addf("%s: offset %d is %d bytes into a swizzle pattern: base offset 0 would be wrong", op.arr, off, in)
			}
		}
	}
	// Where whole tiles, 64-k atoms (K-major) and 64-wide slabs (MN-major,
	// the LBO) start: each must be a pattern boundary too.
	stride := func(o operandWant) int {
		if o.mnMajor {
			return o.lbo
		}
		return o.rows * swizzleRow
	}
	for _, v := range []struct {
		what string
		n    int
	}{{"stage size", stageBytes}, {"B tile offset", bOff}, {"A atom or slab stride", stride(a)}, {"B atom or slab stride", stride(b)}} {
		if v.n%swizzlePattern != 0 {
			p.addf("%s %d bytes is not a multiple of the %d-byte swizzle pattern: base offset 0 would be wrong", v.what, v.n, swizzlePattern)
		}
	}
}

// checkDescriptorSet requires exactly the descriptor constants want: a new
// descriptor in a template must get a check here.
func (p *problems) checkDescriptorSet(r renderedSource, want ...string) {
	var got []string
	for _, m := range reDescConst.FindAllStringSubmatch(r.src, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		p.addf("descriptor constants %v, want exactly %v", got, want)
	}
}

// checkSM100Descriptors checks every descriptor of an sm_100a kernel.
func checkSM100Descriptors(cfg tiling.Config, src string) problems {
	var p problems
	r := renderedSource{src}
	ctas := 1
	if cfg.Schedule == tiling.TwoCTA {
		ctas = 2
	}
	a := operandLayout("A", cfg.TileM/ctas, cfg.TileK, cfg.MajorA == tiling.MNMajor)
	b := operandLayout("B", cfg.TileN/ctas, cfg.TileK, cfg.MajorB == tiling.MNMajor)
	p.checkDescriptorSet(r, "kDescA", "kDescB", "kIDesc")
	p.checkSmemDesc(r, "kDescA", a, true)
	p.checkSmemDesc(r, "kDescB", b, true)
	aBytes, bBytes := a.rows*cfg.TileK*2, b.rows*cfg.TileK*2
	p.checkStartAddresses(r, a, b, aBytes+bBytes, aBytes)

	// The instruction: one cta_group, kind::f16, and the shape of the
	// pair (M = TileM: the whole pair's M with cta_group::2; N = TileN,
	// the whole accumulator, both halves of fwd_gateup's [left | gate]).
	ms := reTcgen05.FindAllStringSubmatch(src, -1)
	if len(ms) != 1 {
		p.addf("%d tcgen05.mma instructions with the operand order [d], a-desc, b-desc, idesc; want 1", len(ms))
		return p
	}
	group, _ := strconv.Atoi(ms[0][1])
	if group != ctas || ms[0][2] != "f16" {
		p.addf("tcgen05.mma.cta_group::%d.kind::%s, want cta_group::%d.kind::f16", group, ms[0][2], ctas)
	}
	if !legalTcgen05F16(group, cfg.TileM, cfg.TileN) {
		p.addf("cta_group::%d M=%d N=%d is not a dense kind::f16 shape of PTX ISA Table 39", group, cfg.TileM, cfg.TileN)
	}
	if !strings.Contains(src, `"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc)`) || !strings.Contains(src, "sw_umma(d, da, db, kIDesc,") {
		p.addf("kIDesc does not reach the idesc operand of tcgen05.mma")
	}
	v, err := r.scalar("kIDesc")
	if err != nil {
		p.addf("%v", err)
		return p
	}
	if v>>32 != 0 {
		p.addf("kIDesc = %#x: wider than 32 bits", v)
	}
	f := decode(v, tcgen05InstrDesc)
	ab := uint64(formatBF16)
	if cfg.DType == tiling.FP16 {
		ab = formatF16
	}
	b2u := func(b bool) uint64 {
		if b {
			return 1
		}
		return 0
	}
	for _, w := range []struct {
		field string
		want  uint64
	}{
		{"sparsity_selector", 0}, {"sparsity", 0}, {"saturate", 0}, {"d_format", formatF32}, {"reserved6", 0},
		{"a_format", ab}, {"b_format", ab}, {"negate_a", 0}, {"negate_b", 0},
		{"transpose_a", b2u(cfg.MajorA == tiling.MNMajor)}, {"transpose_b", b2u(cfg.MajorB == tiling.MNMajor)},
		{"n_shr3", uint64(cfg.TileN >> 3)}, {"reserved23", 0}, {"m_shr4", uint64(cfg.TileM >> 4)}, {"reserved29", 0}, {"max_shift", 0},
	} {
		p.want("kIDesc."+w.field, f[w.field], w.want)
	}
	return p
}

// legalTcgen05F16 is PTX ISA 9.7.16.2.1, Table 39 "Various combinations of
// .kind and shapes", .kind::f16 without .ws, dense, D .f16 or .f32:
// cta_group::1 64xNx16 and 128xNx16 with N = 8, 16, ..., 256;
// cta_group::2 128xNx16 and 256xNx16 with N = 16, 32, ..., 256.
func legalTcgen05F16(group, m, n int) bool {
	switch group {
	case 1:
		return (m == 64 || m == 128) && n >= 8 && n <= 256 && n%8 == 0
	case 2:
		return (m == 128 || m == 256) && n >= 16 && n <= 256 && n%16 == 0
	}
	return false
}

// checkSM90Descriptors checks every descriptor of an sm_90a kernel and the
// wgmma instruction that takes them: each CTA holds the whole TileM x
// TileK A tile and TileN x TileK B tile (cluster shares are multicast
// into it).
func checkSM90Descriptors(cfg tiling.Config, src string) problems {
	var p problems
	r := renderedSource{src}
	a := operandLayout("A", cfg.TileM, cfg.TileK, cfg.MajorA == tiling.MNMajor)
	b := operandLayout("B", cfg.TileN, cfg.TileK, cfg.MajorB == tiling.MNMajor)
	p.checkDescriptorSet(r, "kDescA", "kDescB")
	p.checkSmemDesc(r, "kDescA", a, false)
	p.checkSmemDesc(r, "kDescB", b, false)
	aBytes, bBytes := a.rows*cfg.TileK*2, b.rows*cfg.TileK*2
	p.checkStartAddresses(r, a, b, aBytes+bBytes, aBytes)

	// A consumer's 64-row wgmma blocks: K-major, 64 rows of 128 bytes
	// apart; MN-major, one slab (TileK*128 bytes) apart. The consumer's
	// own offset (a_off) must keep the pattern at a 1024-byte boundary.
	mb, err := r.array("kAMB")
	if err != nil {
		p.addf("%v", err)
	} else {
		var want []int
		for i := 0; i < cfg.RowsPerConsumer()/64; i++ {
			if a.mnMajor {
				want = append(want, i*a.lbo)
			} else {
				want = append(want, i*64*swizzleRow)
			}
		}
		if d := cmp.Diff(want, mb); d != "" {
			p.addf("kAMB: 64-row block offsets (-want +got):\n%s", d)
		}
	}
	if off, err := r.scalar("kConsumerASmem"); err != nil {
		p.addf("%v", err)
	} else if off%swizzlePattern != 0 {
		p.addf("kConsumerASmem = %d: not a multiple of %d, base offset 0 would be wrong", off, swizzlePattern)
	}

	// wgmma.mma_async.sync.aligned.m64nNk16.f32.<t>.<t> {d}, a-desc,
	// b-desc, p, 1, 1, imm-trans-a, imm-trans-b: shapes of 9.7.15.5 for
	// .f16/.bf16 (M 64, N a multiple of 8 in [8,256], K 16); transpose 1 is
	// M- or N-major (9.7.15.5.1.2).
	ms := reWgmma.FindAllStringSubmatch(src, -1)
	if len(ms) == 0 {
		p.addf("no wgmma.mma_async with descriptors and transpose immediates found")
	}
	t := "bf16"
	if cfg.DType == tiling.FP16 {
		t = "f16"
	}
	for _, m := range ms {
		want := []string{"64", strconv.Itoa(cfg.TileN), "16", "f32", t, t,
			strconv.Itoa(cfg.TileN / 2), strconv.Itoa(cfg.TileN/2 + 1),
			map[bool]string{false: "0", true: "1"}[a.mnMajor], map[bool]string{false: "0", true: "1"}[b.mnMajor]}
		if d := cmp.Diff(want, m[1:]); d != "" {
			p.addf("wgmma m, n, k, D, A, B types, a-desc and b-desc operands, trans-a, trans-b (-want +got):\n%s", d)
		}
		if n := cfg.TileN; n < 8 || n > 256 || n%8 != 0 {
			p.addf("wgmma N=%d is not a multiple of 8 in [8,256]", n)
		}
	}
	if !strings.Contains(src, `: "l"(da), "l"(db), "r"(scale_d));`) {
		p.addf("the wgmma's descriptor operands are not da, db")
	}
	return p
}

// renderCatalog renders every catalog config of arch, in catalog order.
func renderCatalog(t *testing.T, arch tiling.Arch) []*gen.Artifact {
	t.Helper()
	var out []*gen.Artifact
	for _, c := range tiling.Catalog() {
		if c.Arch != arch {
			continue
		}
		a, err := gen.Render(tilingtest.Check(t, c))
		if err != nil {
			t.Fatalf("render %s: %v", c.Name(), err)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		t.Fatalf("no %s configs in the catalog", arch)
	}
	return out
}

func TestRenderedDescriptorsSM90(t *testing.T) {
	t.Parallel()
	for _, a := range renderCatalog(t, tiling.ArchSM90a) {
		for _, p := range checkSM90Descriptors(a.Config, string(a.Source)) {
			t.Errorf("%s: %s", a.Name, p)
		}
	}
}

func TestRenderedDescriptorsSM100(t *testing.T) {
	t.Parallel()
	for _, a := range renderCatalog(t, tiling.ArchSM100a) {
		for _, p := range checkSM100Descriptors(a.Config, string(a.Source)) {
			t.Errorf("%s: %s", a.Name, p)
		}
	}
}

// TestRenderedDescriptorChecksFail seeds one wrong field at a time into a
// rendered source: each check must notice, so a pass above means something.
func TestRenderedDescriptorChecksFail(t *testing.T) {
	t.Parallel()
	pick := func(arch tiling.Arch, mnB bool) *gen.Artifact {
		for _, a := range renderCatalog(t, arch) {
			if (a.Config.MajorB == tiling.MNMajor) == mnB && a.Config.MajorA == tiling.KMajor {
				return a
			}
		}
		t.Fatalf("no %s catalog config with major_b mn=%v", arch, mnB)
		return nil
	}
	hexConst := func(src, name string) (string, uint64) {
		m := regexp.MustCompile(`(static constexpr sw_u(?:32|64) ` + name + ` = )(0x[0-9a-f]+)`).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("no constant %s", name)
		}
		v, _ := strconv.ParseUint(m[2], 0, 64)
		return m[0], v
	}
	flip := func(src, name string, bit uint) string {
		old, v := hexConst(src, name)
		prefix := old[:strings.LastIndex(old, "0x")]
		return strings.Replace(src, old, fmt.Sprintf("%s%#x", prefix, v^1<<bit), 1)
	}
	for _, tt := range []struct {
		name  string
		arch  tiling.Arch
		mnB   bool
		seed  func(src string) string
		check func(tiling.Config, string) problems
	}{
		{"sm100 swizzle 128B -> 64B", tiling.ArchSM100a, false, func(s string) string { return flip(flip(s, "kDescA", 62), "kDescA", 61) }, checkSM100Descriptors},
		{"sm100 version bit", tiling.ArchSM100a, false, func(s string) string { return flip(s, "kDescB", 46) }, checkSM100Descriptors},
		{"sm100 lbo mode", tiling.ArchSM100a, false, func(s string) string { return flip(s, "kDescB", 52) }, checkSM100Descriptors},
		{"sm100 base offset", tiling.ArchSM100a, true, func(s string) string { return flip(s, "kDescB", 49) }, checkSM100Descriptors},
		{"sm100 LBO of the MN-major B", tiling.ArchSM100a, true, func(s string) string { return flip(s, "kDescB", 16+9) }, checkSM100Descriptors},
		{"sm100 SBO", tiling.ArchSM100a, false, func(s string) string { return flip(s, "kDescA", 32+6) }, checkSM100Descriptors},
		{"sm100 idesc M>>4 at bit 23", tiling.ArchSM100a, false, func(s string) string { return flip(flip(s, "kIDesc", 23), "kIDesc", 27) }, checkSM100Descriptors},
		{"sm100 idesc N", tiling.ArchSM100a, false, func(s string) string { return flip(s, "kIDesc", 17) }, checkSM100Descriptors},
		{"sm100 idesc transpose B", tiling.ArchSM100a, true, func(s string) string { return flip(s, "kIDesc", 16) }, checkSM100Descriptors},
		{"sm100 idesc B format", tiling.ArchSM100a, false, func(s string) string { return flip(s, "kIDesc", 10) }, checkSM100Descriptors},
		{"sm100 idesc D format f16", tiling.ArchSM100a, false, func(s string) string { return flip(s, "kIDesc", 4) }, checkSM100Descriptors},
		{"sm100 k16 step", tiling.ArchSM100a, false, func(s string) string {
			return strings.Replace(s, "kAK16[kK16] = {0, 32, 64, 96", "kAK16[kK16] = {0, 16, 64, 96", 1)
		}, checkSM100Descriptors},
		{"sm100 unmasked start address", tiling.ArchSM100a, false, func(s string) string {
			return strings.Replace(s, "((smem + s * kStageBytes) & 0x3FFFFu) >> 4", "(smem + s * kStageBytes) >> 4", 1)
		}, checkSM100Descriptors},
		{"sm90 swizzle", tiling.ArchSM90a, false, func(s string) string { return flip(s, "kDescA", 63) }, checkSM90Descriptors},
		{"sm90 LBO of the MN-major B", tiling.ArchSM90a, true, func(s string) string { return flip(s, "kDescB", 16+8) }, checkSM90Descriptors},
		{"sm90 tcgen05 version bit", tiling.ArchSM90a, false, func(s string) string { return flip(s, "kDescB", 46) }, checkSM90Descriptors},
		{"sm90 trans-b", tiling.ArchSM90a, true, func(s string) string {
			return regexp.MustCompile(`p, 1, 1, (\d), 1;`).ReplaceAllString(s, "p, 1, 1, $1, 0;")
		}, checkSM90Descriptors},
		{"sm90 extra descriptor", tiling.ArchSM90a, false, func(s string) string {
			return strings.Replace(s, "static constexpr sw_u64 kDescB", "static constexpr sw_u64 kDescC = 0x0ull;\nstatic constexpr sw_u64 kDescB", 1)
		}, checkSM90Descriptors},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := pick(tt.arch, tt.mnB)
			src := string(a.Source)
			if p := tt.check(a.Config, src); len(p) != 0 {
				t.Fatalf("%s: the unseeded source fails: %v", a.Name, p)
			}
			seeded := tt.seed(src)
			if seeded == src {
				t.Fatalf("%s: the seed changed nothing", a.Name)
			}
			if p := tt.check(a.Config, seeded); len(p) == 0 {
				t.Errorf("%s: seeded %s passed the checks", a.Name, tt.name)
			}
		})
	}
}

// TestRenderedDescriptorsGroupedSM100 checks the descriptors of the sm_100a
// grouped configs (not in the catalog; gen's TestCompileGroupedSM100
// compiles the same ones).
func TestRenderedDescriptorsGroupedSM100(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
		"moe_fwd_gateup_sm100a_bf16_m128n128k64_s6_c1x1_1cta",
		"moe_fwd_gateup_sm100a_fp16_m128n256k64_s4_c1x1_1cta",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn",
		"moe_bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta_bmn",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out",
		"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s4_c1x1_1cta_bmn_out",
		"moe_bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x1_1cta_bmn_tanh",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta_score",
		"moe_fwd_gateup_sm100a_fp16_m128n128k64_s6_c1x1_1cta_score",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out_score",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn_score",
		"moe_bwd_dswiglu_sm100a_fp16_m128n128k64_s5_c1x1_1cta_bmn_score_tanh",
	} {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := gen.Render(tilingtest.Check(t, c))
		if err != nil {
			t.Fatalf("render %s: %v", name, err)
		}
		for _, p := range checkSM100Descriptors(a.Config, string(a.Source)) {
			t.Errorf("%s: %s", a.Name, p)
		}
	}
}
