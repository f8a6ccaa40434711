// Package toolchaintest gives tests a fake CUDA compiler: shell scripts
// named nvcc and ptxas that answer as the real ones do, fast, with a
// version of their own so their builds never share a cache entry with a
// real compiler's.
package toolchaintest

import (
	"os"
	"path/filepath"
	"testing"
)

// Version is the fake nvcc's version.
const Version = "99.9.99"

// nvcc mimics `nvcc --version` and `nvcc -ptx`: it copies the .cu to the
// -o file behind a "// fake ptx" line, failing when the source says
// FAIL_NVCC.
const nvcc = `#!/bin/sh
case "$1" in --version) echo "Cuda compilation tools, release 99.9, V` + Version + `"; exit 0;; esac
out=""; in=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift;; *) in="$1";; esac; shift; done
if grep -q FAIL_NVCC "$in"; then echo "$in(1): error: fake nvcc failure" >&2; exit 2; fi
{ echo "// fake ptx"; cat "$in"; } > "$out"
`

// ptxas mimics `ptxas -v`: the cubin is a checksum of the PTX, the log
// reports one kernel without spills.
const ptxas = `#!/bin/sh
out=""; in=""; arch=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift;; -arch=*) arch="${1#-arch=}";; *) in="$1";; esac; shift; done
{ echo "fake cubin for $arch"; cksum < "$in"; } > "$out"
cat >&2 <<EOF
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'kern' for '$arch'
ptxas info    : Function properties for kern
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem
EOF
`

// Dir writes the fake nvcc and ptxas into a new temporary directory and
// returns it: what --nvcc or toolchain.FindOptions.NVCC takes.
func Dir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"nvcc": nvcc, "ptxas": ptxas} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
