#!/usr/bin/env bash
# A new user's first hour on a CPU machine, as README.md tells it: a fresh
# clone (git clone of this checkout's HEAD: commit first) in a scratch
# directory, an empty HOME and a bare environment, the README's CPU-only
# commands read from the README itself, then its claims about what they
# write. A command that fails, or a file the README says appears that does
# not, is FAIL (exit 1); the last line is PASS or FAIL.
#
#   bash tests/newcomer.sh
#
# Reused, as a newcomer's machine would have them after the first
# download: the Go module and build caches (go env GOMODCACHE, GOCACHE) and
# the CUDA compiler venv, $SWIGEN_CUDA_VENV (default ~/.cache/swigen-cuda),
# which the README's `swigen toolchain install` then reuses instead of
# fetching a few hundred MB (without one there, the install runs for real).
# Left out: .ci/run (the README's second command, and this script's
# caller), the go generate recipe (go test ./tests runs it from the
# README) and the GPU and PyTorch steps (bench/py_quickstart.sh).
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${SWIGEN_CUDA_VENV:-$HOME/.cache/swigen-cuda}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CLONE="$WORK/swigen"
LOG="$WORK/step.log"
# The newcomer's environment: nothing of the caller's but Go, its caches
# and its proxy setting.
BASE_ENV=(PATH="$WORK/go/bin:$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin"
  HOME="$WORK/home" GOMODCACHE="$(go env GOMODCACHE)" GOCACHE="$(go env GOCACHE)"
  GOPROXY="$(go env GOPROXY)" GOTOOLCHAIN="$(go env GOTOOLCHAIN)" TMPDIR="$WORK/tmp" LANG=C.UTF-8)
EXTRA_ENV=()

fail() {
  echo "FAIL: $*"
  exit 1
}
# run LINE: LINE (a shell line of the README) in the clone, in the
# newcomer's environment; its output in $LOG. Returns its exit code.
run() {
  printf '+ %s\n' "$1"
  (cd "${DIR:-$CLONE}" && env -i "${BASE_ENV[@]}" "${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"}" bash -o pipefail -c "$1") >"$LOG" 2>&1
}
# step LINE: run LINE; FAIL with the end of its output when it fails.
step() {
  run "$1" || {
    tail -15 "$LOG" | sed 's/^/  | /'
    fail "\`$1\` (README.md) exits non-zero"
  }
}
# block HEADING: the indented command lines under README.md's "## HEADING",
# their comments cut.
block() {
  awk -v h="## $1" '$0 == h {on=1; next} on && /^## / {exit} on && /^    [^ ]/ {sub(/^    /, ""); print}' "$README" |
    sed -E 's/[[:space:]]+#.*$//'
}
# claim ERE: the numbers README.md's prose gives for the groups of ERE
# (the README reflowed to one line); FAIL when it says no such thing.
claim() {
  local got
  got="$(tr '\n' ' ' <"$README" | tr -s ' ' | sed -nE "s#.*$1.*#\\1 \\2#p")"
  [[ -n $got ]] || fail "README.md no longer says /$1/"
  echo "$got"
}
# files DIR: the number of files in DIR.
files() { find "$1" -maxdepth 1 -type f | wc -l; }
# expect_emit DIR KERNELS FILES COMPILED: DIR holds what the README says
# an emit writes: manifest.json indexing KERNELS kernels, each with its
# .cu and .json (and, COMPILED, its .cubin and .report.json), FILES files
# in all, every .cu with the generated-code header.
expect_emit() {
  local dir=$1 nk=$2 nf=$3 compiled=$4 names n
  [[ -f $dir/manifest.json ]] || fail "$dir/manifest.json missing"
  names="$(grep -oE '"name": "[a-z0-9_]+"' "$dir/manifest.json" | sed -E 's/.*"([a-z0-9_]+)"$/\1/' | grep -v '^swigen_' | sort -u)" || true
  n="$(grep -c . <<<"$names" || true)"
  [[ $n -eq $nk ]] || fail "$dir: manifest.json indexes $n kernels, README.md says $nk"
  for k in $names; do
    for ext in .cu .json; do [[ -f $dir/$k$ext ]] || fail "$dir/$k$ext missing"; done
    if [[ $compiled == yes ]]; then
      [[ -f $dir/$k.report.json ]] || fail "$dir/$k.report.json missing"
      compgen -G "$dir/$k.sm_*.cubin" >/dev/null || fail "$dir/$k.<arch>.cubin missing"
    fi
  done
  [[ $(files "$dir") -eq $nf ]] || fail "$dir holds $(files "$dir") files, README.md says $nf: $(ls "$dir" | tr '\n' ' ')"
  for f in "$dir"/*.cu; do
    head -1 "$f" | grep -qE '^// Code generated .* DO NOT EDIT\.$' || fail "$f lacks the generated-code header"
  done
}

mkdir "$WORK/home" "$WORK/tmp"
git clone -q "$REPO" "$CLONE"
README="$CLONE/README.md"
echo "== a clone of $(git -C "$CLONE" rev-parse --short HEAD) in $CLONE, HOME=$WORK/home"

# --- Run it, test it: the first command, before any install -----------------
first="$(block 'Run it, test it' | grep -E '^go run ./cmd/swigen emit$')" || fail "README.md's first command is no longer go run ./cmd/swigen emit"
step "$first"
read -r f_src _ < <(claim 'Without a compiler it writes the sources and manifests \(([0-9]+)() files\)')
read -r k_all f_all < <(claim 'The first command compiles ([0-9]+) kernels and writes ([0-9]+) files into `out/`')
if grep -q 'Writing sources and manifests only' "$LOG"; then
  grep -q 'swigen toolchain install' "$LOG" || fail "emit without a compiler does not say how to install one"
  expect_emit "$CLONE/out" "$k_all" "$f_src" no
else
  echo "  (a CUDA compiler was found without an install: checking the compiled output)"
  expect_emit "$CLONE/out" "$k_all" "$f_all" yes
fi
# The README says the seed's backward ships no unfused path (so no note).
if grep -q '^note: dispatch: ' "$LOG"; then fail "emit prints a note: dispatch: line; README.md says the seed's backward has no unfused shape"; fi

# --- Install ------------------------------------------------------------------
install="$(block 'Install')"
[[ $(head -1 <<<"$install") == 'git clone <this repository> swigen && cd swigen' ]] || fail "README.md's Install block no longer starts with its git clone line"
EXTRA_ENV=(SWIGEN_CUDA_VENV="$VENV" GOBIN="$WORK/go/bin")
while IFS= read -r line; do
  step "$line"
done < <(tail -n +2 <<<"$install")
command -v "$WORK/go/bin/swigen" >/dev/null || fail "go install ./cmd/swigen installed no swigen into GOBIN"
step "swigen doctor"
grep -qE 'build sm_90a +ok' "$LOG" || fail "swigen doctor: sm_90a does not build after swigen toolchain install"
step "swigen toolchain install --dry-run"
grep -q -- '-m pip install' "$LOG" || fail "toolchain install --dry-run prints no pip command"

# --- the first command again, with the compiler --------------------------------
step "rm -rf out && $first"
expect_emit "$CLONE/out" "$k_all" "$f_all" yes
read -r f_fused _ < <(claim '`--path fused` writes the two fused kernels only \(([0-9]+)() files\)')
step "swigen emit --path fused -o fused"
expect_emit "$CLONE/fused" 2 "$f_fused" yes

# --- the help, the catalog, the version, exit codes, completion ---------------
step "swigen --help"
grep -q 'completion' "$LOG" || fail "swigen --help does not list completion"
step "swigen list"
step "swigen --version"
grep -q "$(git -C "$CLONE" rev-parse --short=12 HEAD)" "$LOG" || fail "swigen --version of a clone's go install is $(cat "$LOG"), not naming the commit"
run "swigen emit --tile 1x2x3" && fail "emit --tile 1x2x3 exits 0" || [[ $? -eq 2 ]] || fail "emit with a bad flag value exits other than 2, as README.md says"
while IFS= read -r line; do
  step "$line && complete -p swigen"
done < <(block 'Shell completion')

# --- the PyTorch block's emit lines (the rest needs torch and a GPU) ---------
scratch=""
pkgs=()
while IFS= read -r line; do
  case "$line" in
  cd*) scratch="$(mktemp -d -p "$WORK/tmp")"; DIR="$scratch" ;;
  swigen*)
    [[ -n $scratch ]] || fail "the PyTorch block runs swigen emit in the checkout"
    step "$line"
    [[ $line =~ --py-package\ ([A-Za-z_0-9]+) ]] && pkgs+=("${BASH_REMATCH[1]}")
    ;;
  esac
done < <(block 'Using swigen from PyTorch')
((${#pkgs[@]} > 0)) || fail "the PyTorch block emits no --py-package"
for p in "${pkgs[@]}"; do
  [[ -f $scratch/$p/__init__.py ]] || fail "the PyTorch block wrote no $p/__init__.py"
done
DIR=""

# --- nothing left in the clone but what the README says the commands write ----
left="$(git -C "$CLONE" status --porcelain --untracked-files=all | grep -vE '^\?\? (out|fused)/' || true)"
[[ -z $left ]] || fail "the README's commands left files in the checkout: $left"
echo "newcomer: ${SECONDS}s"
echo PASS
