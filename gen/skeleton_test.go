package gen

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/swigen/swigen/templates"
)

// kindSwitch matches a template conditional on the kernel kind
// ({{if .Kind.Bwd}}, {{- else if .Kind.Gemm}}, {{if not .Kind.Down}}, ...).
var kindSwitch = regexp.MustCompile(`\{\{-?\s*(else\s+)?(if|with)\s+(not\s+|and\s+|or\s+)?\(?\s*\.Kind\b`)

// TestSkeletonsHaveNoKindSwitch: what differs per kind lives in the kind's
// own file (the blocks kindTemplates composes), never in a skeleton.
func TestSkeletonsHaveNoKindSwitch(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"cuda/sm90a_kernel.cuh.tmpl", "cuda/sm100a_kernel.cuh.tmpl", "cuda/sm90a_overlap.cuh.tmpl"} {
		src, err := fs.ReadFile(templates.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		if m := kindSwitch.Find(src); m != nil {
			t.Errorf("%s switches on the kind: %q; move it into the kind files' blocks", f, m)
		}
	}
}

func TestKindSwitchPattern(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		`{{if .Kind.Bwd}}`: true, `{{- else if .Kind.Gemm}}`: true, `{{if not .Kind.Down}}`: true,
		`{{- if .Kind.GateUp -}}`: true, `{{.Kind.NName}}`: false, `{{if .B.Halves}}`: false,
	} {
		if got := kindSwitch.MatchString(s); got != want {
			t.Errorf("kindSwitch.MatchString(%q) = %v, want %v", s, got, want)
		}
	}
}
