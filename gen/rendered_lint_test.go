package gen_test

// Lints on the rendered sm_100a kernels: properties of the tcgen05 and
// barrier protocol that no sm_100 GPU here can exercise, read from the .cu
// text of every catalog config (and a few variants beyond it).

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/tilingtest"
)

var (
	reStringLit = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	reCTAGroup  = regexp.MustCompile(`cta_group::(\d+)`)
	reCommit    = regexp.MustCompile(`"(tcgen05\.commit\.cta_group::\d\.mbarrier::arrive::one\.shared::cluster(\.multicast::cluster)?\.b64 [^"]*)"\s*::\s*"r"\(bar\)(?:, "h"\(\(sw_u16\)(0x[0-9a-fA-F]+|\d+)\))?`)
)

// stripComments drops // comments (outside string literals) from src, so
// that the lints see code only.
func stripComments(src string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(src, "\n") {
		inStr := false
		cut := len(line)
		for i := 0; i < len(line); i++ {
			switch {
			case inStr && line[i] == '\\':
				i++
			case line[i] == '"':
				inStr = !inStr
			case !inStr && strings.HasPrefix(line[i:], "//"):
				cut = i
			}
			if cut < len(line) {
				break
			}
		}
		b.WriteString(strings.TrimRight(line[:cut], " "))
		if cut < len(line) && strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// kernelBody is the text of the kernel function: from its signature to the
// end of the source.
func kernelBody(src string) (string, error) {
	i := strings.Index(src, `extern "C" __global__`)
	if i < 0 {
		return "", fmt.Errorf("no kernel entry")
	}
	return src[i:], nil
}

// enclosingBlocks returns the header lines of the blocks enclosing offset
// pos of body, innermost first (the text from the start of the line up to
// and including each unmatched '{').
func enclosingBlocks(body string, pos int) []string {
	var out []string
	depth := 0
	for i := pos - 1; i >= 0; i-- {
		switch body[i] {
		case '}':
			depth++
		case '{':
			if depth > 0 {
				depth--
				continue
			}
			start := strings.LastIndexByte(body[:i], '\n') + 1
			out = append(out, strings.TrimSpace(body[start:i+1]))
		}
	}
	return out
}

// callSites returns the offsets in body of calls of fn (fn followed by
// '('), skipping definitions.
func callSites(body, fn string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(body[i:], fn+"(")
		if j < 0 {
			return out
		}
		i += j
		line := body[strings.LastIndexByte(body[:i], '\n')+1 : i]
		if !strings.Contains(line, "SW_DEV") && (i == 0 || !isIdent(body[i-1])) {
			out = append(out, i)
		}
		i += len(fn)
	}
}

func isIdent(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// lintSM100 runs every lint on one rendered sm_100a kernel.
func lintSM100(cfg tiling.Config, src string) problems {
	var p problems
	src = stripComments(src)
	r := renderedSource{src}
	body, err := kernelBody(src)
	if err != nil {
		p.addf("%v", err)
		return p
	}
	ctas := 1
	if cfg.Schedule == tiling.TwoCTA {
		ctas = 2
	}

	// One .cta_group per kernel (PTX ISA: all tcgen05 instructions of a
	// kernel use the same cta_group), and it is the schedule's: every
	// string literal of the source, so comments do not count.
	groups := map[string]bool{}
	for _, lit := range reStringLit.FindAllString(src, -1) {
		for _, m := range reCTAGroup.FindAllStringSubmatch(lit, -1) {
			groups[m[1]] = true
		}
	}
	if len(groups) != 1 || !groups[strconv.Itoa(ctas)] {
		p.addf("instructions use cta_group %v, want exactly ::%d", keys(groups), ctas)
	}

	// The commit's multicast mask is the pair: the cluster ranks that share
	// a tile with the MMA-issuing rank 0 (ranks 0..ctas-1 of a cluster
	// laid out along x); without a pair, no multicast.
	commits := reCommit.FindAllStringSubmatch(src, -1)
	if len(commits) != 1 {
		p.addf("%d tcgen05.commit definitions, want 1", len(commits))
	} else {
		multicast, mask := commits[0][2] != "", commits[0][3]
		switch {
		case ctas == 1 && (multicast || mask != ""):
			p.addf("cta_group::1 commit multicasts (mask %q)", mask)
		case ctas == 2:
			want := 0
			for rank := 0; rank < cfg.ClusterM*cfg.ClusterN; rank++ {
				if rank/ctas == 0 {
					want |= 1 << rank
				}
			}
			got, err := strconv.ParseUint(mask, 0, 16)
			if !multicast || err != nil || int(got) != want {
				p.addf("cta_group::2 commit multicast %v mask %q, want the pair mask %#x", multicast, mask, want)
			}
		}
	}

	// tcgen05.alloc and dealloc are .sync.aligned warp instructions of one
	// warp: both run under the same whole-warp condition, at the top level
	// of the kernel, with the relinquish right after the alloc and the
	// fence/sync/fence sequence before the dealloc.
	allocs, deallocs := callSites(body, "sw_tmem_alloc"), callSites(body, "sw_tmem_dealloc")
	if len(allocs) != 1 || len(deallocs) != 1 {
		p.addf("%d tcgen05.alloc and %d dealloc call sites, want 1 each", len(allocs), len(deallocs))
	} else {
		ab, db := enclosingBlocks(body, allocs[0]), enclosingBlocks(body, deallocs[0])
		if !slices.Equal(ab, db) || len(ab) != 2 || !regexp.MustCompile(`^if \(warp == \d+\) \{$`).MatchString(ab[0]) {
			p.addf("alloc under %q, dealloc under %q: want the same whole-warp condition at the kernel's top level", ab, db)
		}
		after := body[allocs[0]:]
		if !strings.HasPrefix(after, "sw_tmem_alloc(smem + kTmemSlot, kTmemCols);") ||
			!strings.HasPrefix(strings.TrimSpace(after[strings.IndexByte(after, '\n'):]), "sw_tmem_relinquish();") {
			p.addf("the alloc is not sw_tmem_alloc(smem + kTmemSlot, kTmemCols) followed by the relinquish")
		}
		if !strings.HasPrefix(body[deallocs[0]:], "sw_tmem_dealloc(tmem, kTmemCols);") {
			p.addf("the dealloc frees other columns than the alloc took")
		}
		teardown := regexp.MustCompile(`sw_tc_fence_before\(\);\s*sw_block_sync\(\);\s*if \(warp == \d+\) \{\s*sw_tc_fence_after\(\);\s*sw_tmem_dealloc\(`)
		if !teardown.MatchString(body) {
			p.addf("the dealloc is not preceded by fence::before_thread_sync, the block/cluster sync and fence::after_thread_sync")
		}
		for _, fn := range []string{"sw_tmem_ld", "sw_umma", "sw_tmem_empty_arrive"} {
			for _, at := range callSites(body, fn) {
				if at > deallocs[0] {
					p.addf("%s after the dealloc", fn)
				}
			}
		}
	}

	// Every tcgen05.ld of the epilogue is waited for (tcgen05.wait::ld)
	// before the accumulator-empty arrival hands the TMEM buffer back, and
	// the arrival follows a fence::before_thread_sync.
	epi := strings.Index(body, "} else if (warp >= kEpiWarp0) {")
	if epi < 0 {
		p.addf("no epilogue warpgroup")
	} else {
		type event struct {
			at   int
			kind string
		}
		var evs []event
		for _, fn := range []string{"sw_tmem_ld", "sw_tmem_wait_ld", "sw_tmem_empty_arrive"} {
			for _, at := range callSites(body[epi:], fn) {
				evs = append(evs, event{at, fn})
			}
		}
		slices.SortFunc(evs, func(a, b event) int { return a.at - b.at })
		pending, lds, arrivals := false, 0, 0
		for _, e := range evs {
			switch e.kind {
			case "sw_tmem_ld":
				pending = true
				lds++
			case "sw_tmem_wait_ld":
				pending = false
			case "sw_tmem_empty_arrive":
				arrivals++
				if pending {
					p.addf("an accumulator-empty arrival follows a tcgen05.ld with no tcgen05.wait::ld between")
				}
				before := strings.TrimSpace(body[epi : epi+e.at])
				if !strings.HasSuffix(before, "sw_tc_fence_before();") {
					p.addf("an accumulator-empty arrival without tcgen05.fence::before_thread_sync before it")
				}
			}
		}
		if pending || lds == 0 || arrivals == 0 {
			p.addf("epilogue: %d tcgen05.ld, %d arrivals, a load still pending at the end: %v", lds, arrivals, pending)
		}
	}

	// Ring depths: operands, accumulators (TMEM buffers) and the CLC
	// responses are at least 2 deep, laid out at the depth the kernel
	// indexes them with.
	p.ringLints(r, cfg)
	return p
}

// ringLints checks the depth and the layout of each ring of an sm_100a
// kernel.
func (p *problems) ringLints(r renderedSource, cfg tiling.Config) {
	get := func(name string) int {
		v, err := r.scalar(name)
		if err != nil {
			p.addf("%v", err)
		}
		return int(v)
	}
	if s := get("kStages"); s < 2 {
		p.addf("operand ring kStages = %d, want >= 2", s)
	}
	if acc := (get("kBarTEmpty") - get("kBarTFull")) / 8; acc < 2 || get("kBarEFull")-get("kBarTEmpty") != 8*acc {
		p.addf("accumulator ring of %d full and %d empty barriers, want >= 2 each", acc, (get("kBarEFull")-get("kBarTEmpty"))/8)
	} else if cols := get("kTmemCols"); cols < acc*cfg.TileN {
		p.addf("kTmemCols = %d: %d accumulators of %d columns do not fit", cols, acc, cfg.TileN)
	}
	if !strings.Contains(r.src, "sw_mbar_init(smem + kBarTFull + 8 * b, 1);") || !strings.Contains(r.src, "for (int b = 0; b < 2; ++b)") {
		p.addf("the accumulator barriers are not initialised as a ring of 2")
	}
	if cfg.Scheduler != tiling.CLCScheduler {
		if strings.Contains(r.src, "kClcStages") {
			p.addf("a CLC ring in a kernel with the %s scheduler", cfg.Scheduler)
		}
		return
	}
	d := get("kClcStages")
	if d < 2 {
		p.addf("CLC ring kClcStages = %d, want >= 2", d)
	}
	if want := cfg.CLCDepth(); d != want {
		p.addf("CLC ring kClcStages = %d, config depth %d", d, want)
	}
	full, empty, resp, slot := get("kBarClcFull"), get("kBarClcEmpty"), get("kClcResp"), get("kTmemSlot")
	if empty-full != 8*d || resp-empty != 8*d || resp%16 != 0 || slot < resp+16*d {
		p.addf("CLC ring layout full %d, empty %d, responses %d (16-byte aligned), TMEM slot %d: not %d slots each", full, empty, resp, slot, d)
	}
	// Every barrier and response access is indexed by its slot, and every
	// parity is the slot's phase: (ci / kClcStages) & 1.
	for _, ref := range []struct{ name, indexed string }{
		{"kBarClcFull", `smem \+ kBarClcFull \+ 8 \* (?:slot|c)\b`},
		{"kBarClcEmpty", `smem \+ kBarClcEmpty \+ 8 \* (?:slot|c)\b`},
		{"kClcResp", `smem \+ kClcResp \+ 16 \* slot\b`},
	} {
		all := strings.Count(r.src, "smem + "+ref.name)
		if ok := len(regexp.MustCompile(ref.indexed).FindAllString(r.src, -1)); all == 0 || ok != all {
			p.addf("%s: %d of %d accesses indexed by the ring slot", ref.name, ok, all)
		}
	}
	if strings.Count(r.src, "(ci / kClcStages) & 1u") != 2 || strings.Count(r.src, "ci % kClcStages") != 2 || strings.Contains(r.src, "ci & 1u") {
		p.addf("the CLC parity is not the ring's phase (ci / kClcStages) & 1 in both the consumers and the scheduler")
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// lintConfigs is the sm_100a catalog plus variants it lacks: CLC rings of 2
// and 8, a 1cta CLC kernel on a 2x1 cluster, the padded config of the
// audit's D1, and the grouped kinds (inference and training forward, the
// backward with and without out, training forward and backward with the
// router score).
func lintConfigs(t *testing.T) []*gen.Artifact {
	t.Helper()
	arts := renderCatalog(t, tiling.ArchSM100a)
	for _, name := range []string{
		"gemm_sm100a_bf16_m256n256k64_s6_c2x1_2cta_amn_bmn_clc2",
		"bwd_dswiglu_sm100a_bf16_m128n128k64_s5_c1x2_1cta_clc8",
		"fwd_gateup_sm100a_bf16_m128n256k64_s2_c2x1_1cta_out_clc",
		"gemm_sm100a_bf16_m128n192k64_s2_c2x1_1cta_e128x64s1",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s4_c1x1_1cta",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s3_c1x1_1cta_bmn",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out",
		"moe_fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out_score",
		"moe_bwd_dswiglu_sm100a_bf16_m128n256k64_s2_c1x1_1cta_bmn_out_score",
	} {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := gen.Render(tilingtest.Check(t, c))
		if err != nil {
			t.Fatalf("render %s: %v", name, err)
		}
		arts = append(arts, a)
	}
	return arts
}

func TestRenderedProtocolLintsSM100(t *testing.T) {
	t.Parallel()
	for _, a := range lintConfigs(t) {
		for _, p := range lintSM100(a.Config, string(a.Source)) {
			t.Errorf("%s: %s", a.Name, p)
		}
	}
}

// TestRenderedProtocolLintsSM90Rings: the sm_90a operand ring is at least
// 2 deep too.
func TestRenderedProtocolLintsSM90Rings(t *testing.T) {
	t.Parallel()
	for _, a := range renderCatalog(t, tiling.ArchSM90a) {
		if s, err := (renderedSource{string(a.Source)}).scalar("kStages"); err != nil || s < 2 {
			t.Errorf("%s: kStages = %d, %v; want >= 2", a.Name, s, err)
		}
	}
}

// TestRenderedProtocolLintsFail seeds one protocol bug at a time into a
// rendered kernel: each lint must catch its bug.
func TestRenderedProtocolLintsFail(t *testing.T) {
	t.Parallel()
	byName := map[string]*gen.Artifact{}
	for _, a := range lintConfigs(t) {
		byName[a.Name] = a
	}
	const (
		pairCLC = "gemm_sm100a_bf16_m256n256k64_s6_c2x1_2cta_amn_bmn_clc"
		oneCTA  = "fwd_gateup_sm100a_bf16_m128n256k64_s2_c1x1_1cta_out"
	)
	for _, tt := range []struct {
		name, kernel, old, new string
	}{
		{"commit mask of one CTA", pairCLC, `"h"((sw_u16)0x3)`, `"h"((sw_u16)0x1)`},
		{"a second cta_group", pairCLC, "tcgen05.relinquish_alloc_permit.cta_group::2", "tcgen05.relinquish_alloc_permit.cta_group::1"},
		{"multicast commit without a pair", oneCTA, "shared::cluster.b64 [%0];\" :: \"r\"(bar)", "shared::cluster.multicast::cluster.b64 [%0], %1;\" :: \"r\"(bar), \"h\"((sw_u16)0x3)"},
		{"dealloc by another warp", oneCTA, "  if (warp == 2) {\n    sw_tc_fence_after();\n    sw_tmem_dealloc", "  if (warp == 3) {\n    sw_tc_fence_after();\n    sw_tmem_dealloc"},
		{"alloc by one lane", oneCTA, "  if (warp == 2) {\n    sw_tmem_alloc", "  if (warp == 2 && lane == 0) {\n    sw_tmem_alloc"},
		{"no fence before the dealloc sync", oneCTA, "  sw_tc_fence_before();\n  sw_block_sync();\n  if (warp == 2) {\n    sw_tc_fence_after();", "  sw_block_sync();\n  if (warp == 2) {\n    sw_tc_fence_after();"},
		{"arrival before wait::ld", oneCTA, "        sw_tmem_wait_ld();\n        if (nb == nvalid - 1) {\n          // Last TMEM read of the tile: hand the buffer back to the MMA warp\n          // before the smem/TMA part.\n          sw_tc_fence_before();\n          sw_tmem_empty_arrive(smem + kBarTEmpty + 8 * b);\n        }",
			"        if (nb == nvalid - 1) {\n          sw_tc_fence_before();\n          sw_tmem_empty_arrive(smem + kBarTEmpty + 8 * b);\n        }\n        sw_tmem_wait_ld();"},
		{"arrival without fence", oneCTA, "          sw_tc_fence_before();\n          sw_tmem_empty_arrive(", "          sw_tmem_empty_arrive("},
		{"CLC ring of one", pairCLC, "static constexpr sw_u32 kClcStages = 3;", "static constexpr sw_u32 kClcStages = 1;"},
		{"CLC parity of a one-slot ring", pairCLC, "sw_mbar_wait(smem + kBarClcFull + 8 * slot, (ci / kClcStages) & 1u);", "sw_mbar_wait(smem + kBarClcFull + 8 * slot, ci & 1u);"},
		{"CLC response slot 0 only", pairCLC, "sw_clc_try_cancel(smem + kClcResp + 16 * slot, full)", "sw_clc_try_cancel(smem + kClcResp, full)"},
		{"operand ring of one", oneCTA, "static constexpr int kStages = 2;", "static constexpr int kStages = 1;"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := byName[tt.kernel]
			if a == nil {
				t.Fatalf("no kernel %s", tt.kernel)
			}
			src := string(a.Source)
			if p := lintSM100(a.Config, src); len(p) != 0 {
				t.Fatalf("%s: the unseeded source fails: %v", a.Name, p)
			}
			if !strings.Contains(src, tt.old) {
				t.Fatalf("%s: no %q to seed", a.Name, tt.old)
			}
			if p := lintSM100(a.Config, strings.Replace(src, tt.old, tt.new, 1)); len(p) == 0 {
				t.Errorf("%s: seeded %q passed the lints", a.Name, tt.name)
			}
		})
	}
}
