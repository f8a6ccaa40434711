package baseline

import (
	"path/filepath"
	"strings"
)

// cublasNames are the sonames tried in each directory, newest first.
var cublasNames = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so"}

// cublasCandidates lists the library paths OpenCuBLAS tries, in order:
// $SWIGEN_CUBLAS (an explicit file), $CUDA_HOME and $CUDA_PATH, the
// standard CUDA install, $LD_LIBRARY_PATH, Python package installs (pip's
// nvidia-cublas wheels put the library under site-packages/nvidia/cublas/lib
// for CUDA 12 and nvidia/cu13/lib for CUDA 13, e.g. PyTorch's venv), and
// last the bare sonames for the dynamic loader's own search. getenv and glob
// are injected so the order is testable without touching the machine.
func cublasCandidates(getenv func(string) string, glob func(string) ([]string, error)) []string {
	var dirs []string
	for _, v := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := getenv(v); d != "" {
			dirs = append(dirs, filepath.Join(d, "lib64"), filepath.Join(d, "lib"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
		"/usr/local/cuda/targets/sbsa-linux/lib")
	for _, d := range strings.Split(getenv("LD_LIBRARY_PATH"), ":") {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	var sitePkgs []string
	if v := getenv("VIRTUAL_ENV"); v != "" {
		sitePkgs = append(sitePkgs, filepath.Join(v, "lib", "python3*", "site-packages"))
	}
	if h := getenv("HOME"); h != "" {
		sitePkgs = append(sitePkgs, filepath.Join(h, ".local", "lib", "python3*", "site-packages"))
	}
	sitePkgs = append(sitePkgs,
		"/opt/*/.venv/lib/python3*/site-packages",
		"/opt/*/lib/python3*/site-packages",
		"/usr/local/lib/python3*/dist-packages",
		"/usr/local/lib/python3*/site-packages",
		"/usr/lib/python3*/dist-packages",
		"/root/.cache/swigen-cuda/lib/python3*/site-packages",
	)
	for _, sp := range sitePkgs {
		for _, sub := range []string{"nvidia/cu13/lib", "nvidia/cublas/lib"} {
			m, _ := glob(filepath.Join(sp, sub))
			dirs = append(dirs, m...)
		}
	}

	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if f := getenv("SWIGEN_CUBLAS"); f != "" {
		add(f)
	}
	for _, d := range dirs {
		for _, n := range cublasNames {
			add(filepath.Join(d, n))
		}
	}
	for _, n := range cublasNames {
		add(n)
	}
	return out
}
