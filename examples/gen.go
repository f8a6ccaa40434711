// Package examples holds generated packages that show swigen's Go bindings
// and back the GPU tests: examples/kernels is `swigen emit --go-package`
// output for the heuristic sm_90a bwd_dswiglu kernel, cubin included (it is
// embedded with //go:embed, so it is committed). Regenerate it with
//
//	go generate ./examples
//
// CI (tests/gogen_e2e_test.go) runs the same command as `swigen diff` and
// fails when the committed files are stale.
package examples

//go:generate go run ../cmd/swigen emit --go-package kernels -o kernels --arch sm_90a
