package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/tiling"
)

// valueCompleters complete the values of swigen's config flags, wherever
// a command has them: the kinds, archs and dtypes tiling knows, and the
// catalog's config names (those of the --kernel, --arch and --dtype given
// so far).
var valueCompleters = map[string]func(cmd *cobra.Command) []string{
	"kernel": func(*cobra.Command) []string { return stringsOf(tiling.Kernels()) },
	"arch":   func(*cobra.Command) []string { return stringsOf(tiling.Arches()) },
	"dtype":  func(*cobra.Command) []string { return stringsOf(tiling.DTypes()) },
	"name":   catalogNames,
}

// registerCompletions registers valueCompleters on every command under
// root that has one of those flags.
func registerCompletions(root *cobra.Command) {
	for name, values := range valueCompleters {
		if f := root.Flags().Lookup(name); f != nil {
			slice := strings.HasSuffix(f.Value.Type(), "Slice")
			_ = root.RegisterFlagCompletionFunc(name, func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return completeValue(values(cmd), toComplete, slice), cobra.ShellCompDirectiveNoFileComp
			})
		}
	}
	for _, c := range root.Commands() {
		registerCompletions(c)
	}
}

// completeValue returns the values that start with toComplete; for a
// comma-separated list flag, the last element is completed after the
// ones already typed.
func completeValue(values []string, toComplete string, slice bool) []string {
	head := ""
	if i := strings.LastIndexByte(toComplete, ','); slice && i >= 0 {
		head, toComplete = toComplete[:i+1], toComplete[i+1:]
	}
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, toComplete) {
			out = append(out, head+v)
		}
	}
	return out
}

// catalogNames is the names of the catalog configs whose kind, arch and
// dtype match cmd's --kernel, --arch and --dtype where they were given.
func catalogNames(cmd *cobra.Command) []string {
	given := func(flag string) []string {
		f := cmd.Flags().Lookup(flag)
		if f == nil || !f.Changed {
			return nil
		}
		return strings.Split(strings.Trim(f.Value.String(), "[]"), ",")
	}
	ks, as, ds := given("kernel"), given("arch"), given("dtype")
	ok := func(set []string, v string) bool { return set == nil || slices.Contains(set, v) }
	var out []string
	for _, c := range tiling.Catalog() {
		if ok(ks, string(c.Kernel)) && ok(as, string(c.Arch)) && ok(ds, string(c.DType)) {
			out = append(out, c.Name())
		}
	}
	return out
}

func stringsOf[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
