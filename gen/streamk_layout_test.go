package gen

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/swigen/swigen/tiling"
)

// skConst reads `static constexpr <type> name = value;` off a rendered
// source.
func skConst(t *testing.T, src, name string) string {
	t.Helper()
	m := regexp.MustCompile(`static constexpr \w+ ` + name + ` = (\w+);`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no constant %s in the rendered source", name)
	}
	return m[1]
}

// evalCInt evaluates a C integer expression of constants (unsigned
// suffixes dropped; all values positive, so C's and Go's integer division
// agree) after replacing each key of subst by its value.
func evalCInt(t *testing.T, expr string, subst map[string]string) int64 {
	t.Helper()
	for k, v := range subst {
		expr = strings.ReplaceAll(expr, k, v)
	}
	expr = regexp.MustCompile(`(\d+)u\b`).ReplaceAllString(expr, "$1")
	tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, expr)
	if err != nil || tv.Value == nil {
		t.Fatalf("evaluating %q: %v", expr, err)
	}
	v, ok := constant.Int64Val(tv.Value)
	if !ok {
		t.Fatalf("%q is not an int64", expr)
	}
	return v
}

// TestStreamKWorkspaceLayout evaluates the rendered kernel's own workspace
// offsets (the header after the grid's flags, the first partial slot) for
// every grid a launch may have and checks them against the layout the
// host allocates and zeroes (tiling.StreamKWorkspace): the header lies
// inside the zeroed flag area and before the slots, so no partial ever
// overwrites the epoch or the done count, and the last slot ends inside
// the workspace.
func TestStreamKWorkspaceLayout(t *testing.T) {
	for _, name := range []string{
		"gemm_sm90a_bf16_m128n256k64_s4_c1x1_cooperative_sk",
		"bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_sk_out",
	} {
		c, err := tiling.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := renderCfg(c)
		if err != nil {
			t.Fatalf("%s: Render: %v", name, err)
		}
		src := kernelText(t, a)
		m := regexp.MustCompile(`unsigned char\* const slots = workspace \+ (.+);`).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no slots offset in the rendered sw_sk_fixup", name)
		}
		h := regexp.MustCompile(`reinterpret_cast<unsigned int\*>\(workspace\) \+ (gridDim\.x \* \(kSkFlagBytes / 4\));`).FindStringSubmatch(src)
		if h == nil {
			t.Fatalf("%s: no header offset in the rendered sw_sk_header", name)
		}
		subst := map[string]string{"kSkFlagBytes": skConst(t, src, "kSkFlagBytes"), "kSkHeaderBytes": constOr(src, "kSkHeaderBytes")}
		slotBytes := evalCInt(t, skConst(t, src, "kSkSlotBytes"), nil)
		for grid := 1; grid <= tiling.StreamKMaxCTAs; grid++ {
			g := map[string]string{"p.grid": fmt.Sprint(grid), "gridDim.x": fmt.Sprint(grid)}
			for k, v := range subst {
				g[k] = v
			}
			slots := evalCInt(t, m[1], g)
			header := 4 * evalCInt(t, h[1], g)
			flagBytes, _, total := tiling.StreamKWorkspace(grid, c.TileM, c.TileN)
			zero := int64(grid*tiling.StreamKFlagBytes + tiling.StreamKHeaderBytes)
			switch {
			case slots != int64(flagBytes):
				t.Errorf("%s grid %d: the kernel's slots start at byte %d, the host's at %d (tiling.StreamKWorkspace)", name, grid, slots, flagBytes)
			case header+tiling.StreamKHeaderBytes > zero:
				t.Errorf("%s grid %d: the header at byte %d is past the zeroed %d bytes", name, grid, header, zero)
			case header+tiling.StreamKHeaderBytes > slots:
				t.Errorf("%s grid %d: the header at bytes [%d,%d) overlaps the first partial slot at %d (the host's flag area is %d bytes)",
					name, grid, header, header+tiling.StreamKHeaderBytes, slots, flagBytes)
			case slots+int64(grid)*slotBytes > int64(total):
				t.Errorf("%s grid %d: the slots end at byte %d, past the %d-byte workspace", name, grid, slots+int64(grid)*slotBytes, total)
			}
		}
	}
}

// kernelText is a's source and, for a thin unit, the library it includes,
// with the traits' "T::" dropped: the text a kernel's constants and
// offsets are read from, in either form.
func kernelText(t *testing.T, a *Artifact) string {
	t.Helper()
	text := string(a.Source)
	if a.Include != nil {
		err := fs.WalkDir(a.Include, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(a.Include, p)
			text += "\n" + string(b)
			return err
		})
		if err != nil {
			t.Fatalf("reading %s's library: %v", a.Name, err)
		}
	}
	return strings.ReplaceAll(text, "T::", "")
}

// constOr is src's constant name where it has one, else "0".
func constOr(src, name string) string {
	m := regexp.MustCompile(`static constexpr \w+ ` + name + ` = (\w+);`).FindStringSubmatch(src)
	if m == nil {
		return "0"
	}
	return m[1]
}
