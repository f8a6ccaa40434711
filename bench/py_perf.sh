#!/usr/bin/env bash
# One device call for the PyTorch performance figures (#pytorch item 6):
# carry .bin-py/ (swigen alone: CGO_ENABLED=0 go build -o .bin-py/swigen
# ./cmd/swigen). For each shape of SHAPES (';'-separated M,K,I; default
# the seed shape) it emits the kernels SwiGLUMLP uses with that shape's
# heuristic (fwd_gateup training, fwd_down, bwd_dswiglu StoreOut with
# W_down MN-major) as --py-package packages and runs bench/py_perf.py's
# training step on them against eager PyTorch and torch.compile; with
# OVERHEAD=1 first the host cost per op call at a tiny shape (a gemm
# package added; BASE_PY=DIR: that swigen_rt tree's host cost measured
# alternately with this one's, ROUNDS times each, default 2). PERF_ARGS
# are passed to py_perf.py (e.g. --kernels).
# JSON records and logs go to $OUT/py-perf.tgz; the table is printed last.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
# Records and logs go to one archive, $OUT/py-perf.tgz (the device
# returns a limited number of files).
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/py-perf.tgz" -C "$LOG" .' EXIT
SW=${SW:-./.bin-py/swigen}
SHAPES=${SHAPES:-16384,768,4608}
LIMIT=${LIMIT:-280}
export SWIGEN_REV=${SWIGEN_REV:-$($SW version 2>/dev/null | awk '/revision/ {print $2; exit}')}
PKG=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
table=()
emit_for() { # emit_for TAG M,K,I: prints the package dirs
	local tag=$1 shape=$2 dirs=""
	$SW emit --arch sm_90a --py-package "${tag}_gateup" -o "$PKG/${tag}_gateup" --kernel fwd_gateup --store-out --major-b k --shape "$shape" >"$LOG/emit-$tag.log" 2>&1 &
	$SW emit --arch sm_90a --py-package "${tag}_down" -o "$PKG/${tag}_down" --kernel fwd_down --major-b k --shape "$shape" >>"$LOG/emit-$tag.log" 2>&1 &
	$SW emit --arch sm_90a --py-package "${tag}_bwd" -o "$PKG/${tag}_bwd" --kernel bwd_dswiglu --store-out --major-b mn --shape "$shape" >>"$LOG/emit-$tag.log" 2>&1 &
	wait
	for p in gateup down bwd; do [[ -f $PKG/${tag}_$p/__init__.py ]] && dirs="${dirs:+$dirs:}$PKG/${tag}_$p"; done
	echo "$dirs"
}
if [[ ${OVERHEAD:-0} == 1 ]]; then
	dirs=$(emit_for ov 16384,768,4608)
	$SW emit --arch sm_90a --py-package ov_gemm -o "$PKG/ov_gemm" --kernel gemm >>"$LOG/emit-ov.log" 2>&1 && dirs="$dirs:$PKG/ov_gemm"
	if [[ -n ${BASE_PY:-} ]]; then
		# A/B: BASE_PY's swigen_rt and this tree's, alternately, ROUNDS times each.
		for r in $(seq "${ROUNDS:-2}"); do
			for v in base new; do
				rt=$([[ $v == base ]] && echo "$BASE_PY" || echo python)
				SWIGEN_RT_DIR=$rt timeout 120 python3 bench/py_perf.py --overhead --packages "$dirs" --json "$LOG/py-overhead-$v$r.json" >"$LOG/py-overhead-$v$r.log" 2>&1
				table+=("overhead $v round $r rc=$?")
				table+=("$(grep '^overhead' "$LOG/py-overhead-$v$r.log")")
			done
		done
	else
		timeout 120 python3 bench/py_perf.py --overhead --packages "$dirs" --json "$LOG/py-overhead.json" >"$LOG/py-overhead.log" 2>&1
		table+=("overhead rc=$?")
		cat "$LOG/py-overhead.log"
	fi
fi
IFS=';' read -ra shapes <<<"$SHAPES"
[[ $SHAPES == none ]] && shapes=() # OVERHEAD=1 SHAPES=none: the host cost alone
for s in "${shapes[@]}"; do
	tag=s$(echo "$s" | tr ',' 'x')
	dirs=$(emit_for "$tag" "$s")
	grep -hE '^sm_90a|rror' "$LOG/emit-$tag.log"
	timeout "$LIMIT" python3 bench/py_perf.py --shape "$s" --packages "$dirs" ${PERF_ARGS:-} --json "$LOG/py-step-$tag.json" >"$LOG/py-step-$tag.log" 2>&1
	rc=$?
	grep -E '^(swigen|eager|torch)' "$LOG/py-step-$tag.log" | head -48 >&2
	table+=("$s rc=$rc")
	table+=("$(grep -E '  (eager|torch.compile|swigen|one step|back-to-back)' "$LOG/py-step-$tag.log")")
done
echo
printf '%s\n' "${table[@]}"
