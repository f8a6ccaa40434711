package main
import (
 _ "github.com/spf13/cobra"
 _ "github.com/dave/jennifer/jen"
 _ "github.com/google/go-cmp/cmp"
 _ "github.com/ebitengine/purego"
 _ "github.com/schollz/progressbar/v3"
 _ "golang.org/x/tools/txtar"
)
func main(){}
