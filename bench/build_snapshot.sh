#!/usr/bin/env bash
# Like build.sh, but from the committed tree plus the given uncommitted
# paths (so half-finished work elsewhere in the tree cannot break the GPU
# binaries). Usage: bench/build_snapshot.sh [path ...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
git worktree add -q --detach "$tmp" HEAD
trap 'git worktree remove --force "$tmp"' EXIT
for p in "$@"; do mkdir -p "$tmp/$(dirname "$p")"; cp -rT "$p" "$tmp/$p"; done
rev=$(git rev-parse --short=12 HEAD)$([ $# -gt 0 ] && echo -dirty || true)
mkdir -p .bin
(cd "$tmp" && CGO_ENABLED=0 go build -ldflags "-s -w -X main.gitRevision=$rev" -o "$root/.bin/swigen" ./cmd/swigen &&
  for p in runtime/cu lab/ref lab/baseline lab/check lab/bench; do CGO_ENABLED=0 go test -c -ldflags "-s -w" -tags gpu ./$p -o "$root/.bin/${p#*/}.test"; done &&
  CGO_ENABLED=0 go test -c -ldflags "-s -w" -tags gpu ./tests -o "$root/.bin/tests.test")
echo "built .bin/ at $rev"
