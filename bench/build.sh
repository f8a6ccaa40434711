#!/usr/bin/env bash
# Builds the CGO_ENABLED=0 binaries the GPU machine runs (it has no Go):
# swigen and the gpu-tagged test binaries, into .bin/ (carry it), stripped
# (-s -w) so they and the tree fit the device's 64 MiB transfer.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse --short=12 HEAD)$([ -n "$(git status --porcelain --untracked-files=no)" ] && echo -dirty || true)
mkdir -p .bin
CGO_ENABLED=0 go build -ldflags "-s -w -X main.gitRevision=$rev" -o .bin/swigen ./cmd/swigen
for p in runtime/cu lab/ref lab/baseline lab/check lab/bench; do CGO_ENABLED=0 go test -c -ldflags "-s -w" -tags gpu ./$p -o .bin/${p#*/}.test; done
CGO_ENABLED=0 go test -c -ldflags "-s -w" -tags gpu ./tests -o .bin/tests.test
echo "built .bin/ at $rev"
