// Package deps imports, for their side of the module graph only, the
// modules that swigen's packages use, so that `go mod tidy` run while a
// package that needs one is being written does not drop it from go.mod.
// Nothing imports this package.
package deps

import (
	_ "github.com/dave/jennifer/jen"
	_ "github.com/ebitengine/purego"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/tools/txtar"
)
