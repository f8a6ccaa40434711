// Command swigen generates, compiles, verifies and tunes fused SwiGLU-MLP
// GPU kernels (sm_90a Hopper, sm_100a Blackwell). Run `swigen --help`.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
