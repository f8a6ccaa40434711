#!/usr/bin/env bash
# One device call for the wheel (swigen wheel, issue 45 item 5). Build here
# first, and carry both folders:
#   go run ./cmd/swigen wheel --arch sm_90a -o .whl-swigen && bash bench/build.sh
#   carry [".bin", ".whl-swigen"]
# It installs .whl-swigen/swigen_kernels-*.whl with no index into a fresh
# venv that sees the machine's torch (--system-site-packages), checks that
# swigen_rt comes from the venv, then, from outside the repository
# (bench/wheel_step.py): SwiGLUMLP forward + backward on the wheel's
# kernels alone at the suite shapes and ragged ones, gradients against
# fp32; and the training step's time on the wheel's kernels against
# packages emitted for the shape with .bin/swigen (emitted: py_perf.sh's
# recipe, bwd_dswiglu W_down MN-major; emitted-k: every kernel K-major,
# as the wheel's) at TIME_SHAPES. Logs and the JSON record go to $OUT;
# a PASS/FAIL table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
REPO=$PWD
SW=$REPO/.bin/swigen
SUITE="16384,768,4608;8192,4096,14336;4096,4096,7168;2048,4096,3584;128,4096,14336;8192,8192,28672;8192,8192,14336;8192,8192,7168;8192,8192,3584;32768,8192,3584;8192,3584,18944;4096,3584,9472;4096,4096,14336;4096,7168,2048;512,7168,2048;2048,2048,768;8192,3584,14336;16384,3584,7168"
RAGGED="1000,1000,3000;777,4096,1032;3,64,64"
SHAPES=${SHAPES:-$SUITE;$RAGGED}
TIME_SHAPES=${TIME_SHAPES:-16384,768,4608;8192,4096,14336;2048,2048,768;128,4096,14336}
table=()
fail() { table+=("FAIL $*"); printf '\n%s\n' "${table[@]}"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
whl=$(ls "$REPO"/.whl-swigen/swigen_kernels-*.whl 2>/dev/null | head -1)
[[ -n $whl ]] || fail "no .whl-swigen/swigen_kernels-*.whl: build it (go run ./cmd/swigen wheel -o .whl-swigen) and carry .whl-swigen"
table+=("info wheel $(basename "$whl") $(stat -c %s "$whl") bytes")
V=$(mktemp -d)
python3 -m venv --system-site-packages "$V/venv" >"$OUT/venv.log" 2>&1 || fail "venv: $(tail -1 "$OUT/venv.log")"
t0=$(date +%s.%N)
"$V/venv/bin/pip" install -q --no-index --no-deps "$whl" >>"$OUT/venv.log" 2>&1 || fail "pip install: $(tail -1 "$OUT/venv.log")"
table+=("PASS install $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")s (pip install --no-index)")
# Import time of the runtime and the bundle, from a directory outside the repository.
imp=$(cd "$V" && "$V/venv/bin/python" -c 'import time; t=time.perf_counter(); import swigen_rt, swigen_rt.ops; from swigen_rt import select; b=select.bundle(); print("%.2fs %s %d kernels" % (time.perf_counter()-t, swigen_rt.__file__, len(b.kernels)))' 2>&1 | tail -1)
[[ $imp == *site-packages* ]] && table+=("PASS import $imp") || table+=("FAIL import $imp")
# Emitted packages per timed shape, in the background while the checks run.
PKG=$(mktemp -d)
emitted=()
IFS=';' read -ra tshapes <<<"$TIME_SHAPES"
for s in "${tshapes[@]}"; do
	tag=s$(echo "$s" | tr ',' 'x')
	(
		$SW emit --arch sm_90a --py-package "${tag}_gu" -o "$PKG/${tag}_gu" --kernel fwd_gateup --store-out --major-b k --shape "$s"
		$SW emit --arch sm_90a --py-package "${tag}_dn" -o "$PKG/${tag}_dn" --kernel fwd_down --major-b k --shape "$s"
		$SW emit --arch sm_90a --py-package "${tag}_bm" -o "$PKG/${tag}_bm" --kernel bwd_dswiglu --store-out --major-b mn --shape "$s"
		$SW emit --arch sm_90a --py-package "${tag}_bk" -o "$PKG/${tag}_bk" --kernel bwd_dswiglu --store-out --major-b k --shape "$s"
	) >"$OUT/emit-$tag.log" 2>&1 &
	emitted+=(--emitted "$s=emitted:$PKG/${tag}_gu:$PKG/${tag}_dn:$PKG/${tag}_bm;emitted-k:$PKG/${tag}_gu:$PKG/${tag}_dn:$PKG/${tag}_bk")
done
wait
for s in "${tshapes[@]}"; do
	tag=s$(echo "$s" | tr ',' 'x')
	for p in gu dn bm bk; do [[ -f $PKG/${tag}_$p/__init__.py ]] || table+=("FAIL emit $s $p: $(tail -1 "$OUT/emit-$tag.log")"); done
done
(cd "$V" && timeout "${LIMIT:-360}" "$V/venv/bin/python" "$REPO/bench/wheel_step.py" --shapes "$SHAPES" "${emitted[@]}" \
	--json "$OUT/wheel-step.json") >"$OUT/wheel-step.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL)' "$OUT/wheel-step.log" >/dev/null || table+=("FAIL wheel_step.py rc=$rc: $(tail -3 "$OUT/wheel-step.log" | tr '\n' ' ')")
table+=("$(grep -E '^(PASS|FAIL)' "$OUT/wheel-step.log")")
echo
printf '%s\n' "${table[@]}"
