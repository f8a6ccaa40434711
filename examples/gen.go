// Package examples holds generated packages that show swigen's Go bindings
// and back the GPU tests, each `swigen emit --go-package` output with its
// cubin included (it is embedded with //go:embed, so it is committed):
//
//   - examples/kernels: the heuristic sm_90a bwd_dswiglu kernel
//     (kernels.LoadBwdDswiglu, kernels.BwdArgs);
//   - examples/matmul: the heuristic sm_90a gemm kernel (matmul.LoadGemm,
//     matmul.GemmArgs).
//
// Regenerate them with
//
//	go generate ./examples
//
// CI (tests/gogen_e2e_test.go) runs the same commands as `swigen diff` and
// fails when the committed files are stale.
package examples

//go:generate go run ../cmd/swigen emit --go-package kernels -o kernels --arch sm_90a
//go:generate go run ../cmd/swigen emit --kernel gemm --go-package matmul -o matmul --arch sm_90a
