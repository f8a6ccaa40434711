#!/usr/bin/env bash
# One device call for the wheel (swigen wheel, issue 45 item 5). Prepare
# here first (bench/wheel_prep.sh: the wheel and the packages it is timed
# against, one compiler) and carry the folder:
#   bash bench/wheel_prep.sh
#   carry [".whl-swigen"]
# It installs .whl-swigen/swigen_kernels-*.whl with no index into a fresh
# venv that sees the machine's torch (--system-site-packages), checks that
# swigen_rt comes from the venv, then, from outside the repository
# (bench/wheel_step.py): SwiGLUMLP forward + backward on the wheel's
# kernels alone at the suite shapes and ragged ones, gradients against
# fp32; and the training step's time on the wheel's kernels against
# packages emitted for the shape (emitted: py_perf.sh's recipe,
# bwd_dswiglu W_down MN-major, as the wheel's: wheel/emitted ~1.00;
# emitted-k: every kernel K-major, so SwiGLUMLP transposes W_down each
# backward) at TIME_SHAPES (wheel_prep.sh's). Before the timing, the
# grouped (mixture-of-experts) ops on the wheel's kernels alone:
# python/tests/gpu/test_moe.py with SWIGEN_MOE_WHEEL=1 (its kernel classes
# on the wheel's moe_fwd_gateup, its train and moe_bwd_dswiglu out kernels,
# the layer's checks on them too), from outside the repository on the
# venv's swigen_rt (MOE=0 skips it, MOE_LIMIT bounds it; STEP=0 skips
# wheel_step.py). Logs and the JSON record go to $OUT; a PASS/FAIL table is
# printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
REPO=$PWD
SUITE="16384,768,4608;8192,4096,14336;4096,4096,7168;2048,4096,3584;128,4096,14336;8192,8192,28672;8192,8192,14336;8192,8192,7168;8192,8192,3584;32768,8192,3584;8192,3584,18944;4096,3584,9472;4096,4096,14336;4096,7168,2048;512,7168,2048;2048,2048,768;8192,3584,14336;16384,3584,7168"
RAGGED="1000,1000,3000;777,4096,1032;3,64,64"
SHAPES=${SHAPES:-$SUITE;$RAGGED}
table=()
fail() { table+=("FAIL $*"); printf '\n%s\n' "${table[@]}"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
whl=$(ls "$REPO"/.whl-swigen/swigen_kernels-*.whl 2>/dev/null | head -1)
[[ -n $whl ]] || fail "no .whl-swigen/swigen_kernels-*.whl: run bash bench/wheel_prep.sh where Go is, and carry .whl-swigen"
table+=("info wheel $(basename "$whl") $(stat -c %s "$whl") bytes")
V=$(mktemp -d)
python3 -m venv --system-site-packages "$V/venv" >"$OUT/venv.log" 2>&1 || fail "venv: $(tail -1 "$OUT/venv.log")"
# torch wherever this python3 finds it (a user site or another prefix too),
# after the venv's own site-packages, which holds the wheel.
torch_site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))') || fail "no torch for python3"
echo "$torch_site" >"$("$V/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/system-torch.pth"
t0=$(date +%s.%N)
"$V/venv/bin/pip" install -q --no-index --no-deps "$whl" >>"$OUT/venv.log" 2>&1 || fail "pip install: $(tail -1 "$OUT/venv.log")"
table+=("PASS install $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")s (pip install --no-index)")
# Import time of the runtime and the bundle, from a directory outside the repository.
imp=$(cd "$V" && "$V/venv/bin/python" -c 'import time; t=time.perf_counter(); import swigen_rt, swigen_rt.ops; from swigen_rt import select; b=select.bundle(); print("%.2fs %s %d kernels" % (time.perf_counter()-t, swigen_rt.__file__, len(b.kernels)))' 2>&1 | tail -1)
[[ $imp == *"$V/venv/"*site-packages* ]] && table+=("PASS import $imp") || table+=("FAIL import $imp")
# The grouped ops on the wheel alone. test_moe.py's support import would
# put the repository's python/ first on sys.path: a stub stands in for it.
if [[ ${MOE:-1} == 1 ]]; then
	T=$V/moe
	mkdir -p "$T" && cp "$REPO/python/tests/gpu/test_moe.py" "$T/" &&
		echo '"""The installed swigen_rt: no sys.path change."""' >"$T/support.py"
	(cd "$T" && SWIGEN_MOE_WHEEL=1 timeout "${MOE_LIMIT:-240}" "$V/venv/bin/python" -m unittest -v test_moe) >"$OUT/wheel-moe.log" 2>&1
	rc=$?
	ran=$(grep -E '^Ran [0-9]+ tests' "$OUT/wheel-moe.log")
	# The kernel classes must run, not skip: the wheel ships their kernels
	# (a class skipped for want of torch, a GPU or a kernel says "needs").
	skipped=$(grep -c "skipped 'needs" "$OUT/wheel-moe.log")
	if [[ $rc == 0 && $skipped == 0 ]]; then
		table+=("PASS moe ops on the wheel's kernels: $ran, $(tail -1 "$OUT/wheel-moe.log") (wheel-moe.log)")
	else
		table+=("FAIL moe ops on the wheel's kernels: rc=$rc, $skipped tests skipped (needs torch, a GPU or a kernel), $ran: $(grep -E '^(FAIL|ERROR):' "$OUT/wheel-moe.log" | head -3 | tr '\n' ' ')(wheel-moe.log)")
	fi
fi
[[ ${STEP:-1} == 1 ]] || { printf '\n%s\n' "${table[@]}"; ! printf '%s\n' "${table[@]}" | grep -q '^FAIL'; exit; }
# The packages each timed shape is compared with (bench/wheel_prep.sh
# emitted them with the wheel's compiler).
emitted=()
E=$REPO/.whl-swigen/emitted
TIME_SHAPES=${TIME_SHAPES:-$(cat "$E/TIME_SHAPES" 2>/dev/null)}
IFS=';' read -ra tshapes <<<"$TIME_SHAPES"
for s in "${tshapes[@]}"; do
	tag=s$(echo "$s" | tr ',' 'x')
	ok=1
	for p in gu dn bm bk; do [[ -f $E/${tag}_$p/__init__.py ]] || { table+=("FAIL emitted $s: no $E/${tag}_$p (bench/wheel_prep.sh makes it)"); ok=0; }; done
	[[ $ok == 1 ]] && emitted+=(--emitted "$s=emitted:$E/${tag}_gu:$E/${tag}_dn:$E/${tag}_bm;emitted-k:$E/${tag}_gu:$E/${tag}_dn:$E/${tag}_bk")
done
(cd "$V" && timeout "${LIMIT:-360}" "$V/venv/bin/python" "$REPO/bench/wheel_step.py" --shapes "$SHAPES" "${emitted[@]}" \
	--json "$OUT/wheel-step.json") >"$OUT/wheel-step.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL)' "$OUT/wheel-step.log" >/dev/null || table+=("FAIL wheel_step.py rc=$rc: $(tail -3 "$OUT/wheel-step.log" | tr '\n' ' ')")
table+=("$(grep -E '^(PASS|FAIL)' "$OUT/wheel-step.log")")
echo
printf '%s\n' "${table[@]}"
# Exit non-zero when any row failed, so a caller's table sees it.
! printf '%s\n' "${table[@]}" | grep -q '^FAIL'
