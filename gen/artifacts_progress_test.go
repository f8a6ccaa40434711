package gen

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/swigen/swigen/gen/toolchain"
	"github.com/swigen/swigen/gen/toolchain/toolchaintest"
)

// progressProbe records each progress line with the number of builds
// the cache held when it came: a line written as its compile finishes
// sees that compile's entry and, one job at a time, no later one.
type progressProbe struct {
	cache string
	lines []string
	seen  []int
}

func (p *progressProbe) Write(b []byte) (int, error) {
	ents, err := os.ReadDir(p.cache)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	p.lines = append(p.lines, strings.TrimSuffix(string(b), "\n"))
	p.seen = append(p.seen, n)
	return len(b), nil
}

// TestEmitProgress: one progress line per kernel, written as its compile
// finishes, counting up to the number of kernels; a second emit reads
// every kernel from the build cache and says so.
func TestEmitProgress(t *testing.T) {
	t.Parallel()
	tc, err := toolchain.Find(toolchain.FindOptions{NVCC: toolchaintest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	cfgs := heuristicConfigs(t)
	arts, err := RenderAll(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, pass := range []string{"cold", "warm"} {
		p := &progressProbe{cache: cache}
		_, err := Emit(context.Background(), cfgs, EmitOptions{Dir: t.TempDir(), Toolchain: tc, Jobs: 1, Progress: p,
			Compile: toolchain.CompileOptions{CacheDir: cache}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.lines) != len(arts) {
			t.Fatalf("%s: %d progress lines for %d kernels:\n%s", pass, len(p.lines), len(arts), strings.Join(p.lines, "\n"))
		}
		named := map[string]bool{}
		for i, l := range p.lines {
			want := fmt.Sprintf("compiled %d/%d ", i+1, len(arts))
			name, _, _ := strings.Cut(strings.TrimPrefix(l, want), " ")
			named[name] = true
			if !strings.HasPrefix(l, want) || (pass == "warm") != strings.HasSuffix(l, "(cache hit)") {
				t.Errorf("%s: line %d %q, want %q... with a cache hit %v", pass, i, l, want, pass == "warm")
			}
			if wantSeen := i + 1; pass == "cold" && p.seen[i] != wantSeen {
				t.Errorf("%s: line %d came with %d builds done, want %d (as its compile finished)", pass, i, p.seen[i], wantSeen)
			}
		}
		for _, a := range arts {
			if !named[a.Name] {
				t.Errorf("%s: no progress line names %s:\n%s", pass, a.Name, strings.Join(p.lines, "\n"))
			}
		}
	}
}
