package templates

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestHeaderBody: the body of every library header is its text after the
// #pragma once line, trimmed; the common header's is the skeletons' common
// template, so it starts with the types.
func TestHeaderBody(t *testing.T) {
	t.Parallel()
	body, err := HeaderBody("swigen_v1_common.cuh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(body, "// ---- types") || strings.Contains(body, "#pragma once") {
		t.Errorf("HeaderBody(swigen_v1_common.cuh) starts %q; want the types, after the #pragma once line", body[:min(40, len(body))])
	}
	if _, err := HeaderBody("swigen_v0_missing.cuh"); err == nil {
		t.Error("HeaderBody of a missing header: no error")
	}
}

// TestHeaderBodyOf: a header without #pragma once, or whose body holds a
// template action's delimiter, is refused with the rule it breaks.
func TestHeaderBodyOf(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"ok.cuh":     {Data: []byte("// doc\n#pragma once\n\nint x;\n\n")},
		"nopragma.h": {Data: []byte("int x;\n")},
		"braces.h":   {Data: []byte("#pragma once\nint x[1] = {{1}};\n")},
	}
	for _, tc := range []struct {
		path, want, err string
	}{
		{"ok.cuh", "int x;", ""},
		{"nopragma.h", "", `no "#pragma once" line`},
		{"braces.h", "", `holds "{{"`},
	} {
		got, err := headerBodyOf(fsys, tc.path)
		if tc.err == "" && (err != nil || got != tc.want) {
			t.Errorf("headerBodyOf(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("headerBodyOf(%s) error = %v; want one saying %s", tc.path, err, tc.err)
		}
	}
}

// TestIncludeFlat: the library is one flat directory of versioned names, as
// an emit writes it beside the units (an emit's files have no directories).
func TestIncludeFlat(t *testing.T) {
	t.Parallel()
	entries, err := IncludeFS.ReadDir(IncludeDir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("ReadDir(%s): %d entries, %v", IncludeDir, len(entries), err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), "swigen_v") {
			t.Errorf("%s/%s: want a file named swigen_v<N>_*", IncludeDir, e.Name())
		}
	}
}
