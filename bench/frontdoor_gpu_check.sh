#!/usr/bin/env bash
# The GPU steps of the front-door changes, one device call (carry .bin/ from
# `bash bench/build.sh`; needs torch for the quick start):
#   1. the generated bindings of examples/kernels on the GPU, their dispatch
#      included: its swigen_elementwise cubin is now compiled from the
#      source with the generated-code header (tests.test -run
#      GeneratedBindings);
#   2. README.md's PyTorch block as a new user runs it, now in a scratch
#      directory (bench/py_quickstart.sh).
# Logs under $OUT; a PASS/FAIL table last.
set -u
export PATH=$PWD/.bin:/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
declare -a rows=()
row() { rows+=("$(printf '%-44s %s' "$1" "$2")"); }

(cd tests && timeout 300 ../.bin/tests.test -test.v -test.count=1 -test.run 'GeneratedBindings') >"$OUT/bindings_gpu.txt" 2>&1
rc=$?
grep -E '^(--- |ok|PASS|FAIL)' "$OUT/bindings_gpu.txt" | tail -8
if [[ $rc -eq 0 ]] && grep -q -- '--- PASS: TestGeneratedBindingsDispatchGPU' "$OUT/bindings_gpu.txt"; then
  row "generated bindings (dispatch incl.) on GPU" PASS
else
  row "generated bindings (dispatch incl.) on GPU" "FAIL (exit $rc)"
fi

timeout 400 bash bench/py_quickstart.sh >"$OUT/py_quickstart.txt" 2>&1
rc=$?
tail -8 "$OUT/py_quickstart.txt"
if [[ $rc -eq 0 ]] && [[ $(tail -1 "$OUT/py_quickstart.txt") == PASS ]]; then
  row "README PyTorch block (py_quickstart.sh)" PASS
else
  row "README PyTorch block (py_quickstart.sh)" "FAIL (exit $rc)"
fi

echo
printf '%s\n' "${rows[@]}"
