#!/usr/bin/env bash
# One device call for the PyTorch comparison (issue #pytorch-peers): carry
# .bin/ (bench/build.sh) and the peers' wheels (.whl-peers/, see below).
#
# For each shape of SHAPES (';'-separated M,K,I; "suite": the model-shape
# suite, lab/bench/suite.go, then two shapes outside it, the default
# on 4 GPUs or more; "core", the default below that: the issue's four
# shapes and the two outside the suite) it emits the
# kernels SwiGLUMLP runs with that shape's heuristic (fwd_gateup training
# and inference, bwd_dswiglu StoreOut W_down MN-major; DOWN_AB=1 adds
# fwd_down) as --py-package packages, and bench/py_perf.py --compare times
# swigen's SwiGLUMLP against the peers (bench/py_peers.py): the HF block
# eager, torch.compile (default; max-autotune-no-cudagraphs at the TUNE
# shapes), Liger-Kernel's LigerSwiGLUMLP and LigerMLP, QuACK's MLP untuned
# (tuned at the TUNE shapes: ~105 s of autotuning each): training step,
# inference forward, peak memory, first-call time, errors vs fp32.
# PEERS picks the families (default swigen,eager,compile,liger,quack); a
# peer whose package is missing is skipped with a line saying so.
#
# The shapes are spread over the GPUs (GPUS, default all), one worker
# process each (CUDA_VISIBLE_DEVICES), by bench/py_table.py --plan: each
# shape's estimated seconds (py_table.estimate_s: first calls, tuning at the
# TUNE shapes, >= 30 reps alone and back-to-back), longest first onto the
# least loaded GPU. SHARD=i/n keeps only the i-th of n such parts (the
# suite on one GPU over several calls; py_table.py merges their
# py-peers.json files). LIMIT (default 530 s) bounds the whole run: shapes
# and peers that would start after it are skipped with a line. One H200
# runs the core shapes in one call per peer group; the suite (20 shapes)
# on nvidia-h200-x8 plans to ~150 s for the longest GPU (the TUNE shapes
# alone on theirs). BREAKDOWN (';'-separated M,K,I) adds torch.profiler's
# kernels and gaps of one step of each variant there ($OUT/py-breakdown.txt).
#
# Wheels (the machine has no network): WHEELS (default .whl-peers) holds
# *.whl files, installed with pip --no-deps --target into /tmp/site, and
# NAME.tar.xz.partKofN (a wheel's unpacked contents, split: cutlass-dsl's
# cu13 library wheel is 92 MB) unpacked there once all N parts are here;
# a wheel whose distribution this Python has already is left out. The
# device's transfer (64 MiB with the tree and .bin/swigen) takes Liger
# (.whl-peers/liger, 0.9 MB) and two of the three 20.7 MB parts
# (.whl-peers/cu13) in one call, QuACK's wheels (.whl-peers/quack,
# 18.5 MB) and the third part in the next call on the same warm machine,
# which keeps the first call's files: PEERS=swigen,eager,compile,liger
# first, then PEERS=quack.
#
# JSON records (command, revision, GPU, date) go to $OUT/py-peers.json
# (every shape) and $OUT/py-perf.tgz (per-shape records, logs); the table
# is printed last. OVERHEAD=1 instead measures the host cost per op call.
set -u
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
START=$(date +%s)
LIMIT=${LIMIT:-530}
DEADLINE=$((START + LIMIT))
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/py-perf.tgz" -C "$LOG" .' EXIT
SW=${SW:-./.bin/swigen}
[[ -x $SW ]] || SW=./.bin-py/swigen
SUITE="16384,768,4608;8192,4096,14336;4096,4096,7168;2048,4096,3584;128,4096,14336;8192,8192,28672;8192,8192,14336;8192,8192,7168;8192,8192,3584;32768,8192,3584;8192,3584,18944;4096,3584,9472;4096,4096,14336;4096,7168,2048;512,7168,2048;2048,2048,768;8192,3584,14336;16384,3584,7168"
# Outside the suite: Llama-3.2-3B (hidden 3072, intermediate 8192) at
# M=4096, and a ragged M with TinyLlama-1.1B's sizes (2048, 5632).
OUTSIDE="4096,3072,8192;3000,2048,5632"
CORE="16384,768,4608;8192,4096,14336;4096,7168,2048;2048,4096,3584;$OUTSIDE"
NG=${GPUS:-$(nvidia-smi -L | wc -l)}
((NG < 1)) && NG=1
# Default: the suite on a host of 4 GPUs or more, else the core shapes.
case ${SHAPES:-$( ((NG >= 4)) && echo suite || echo core)} in
suite) SHAPES="$SUITE;$OUTSIDE" ;;
core) SHAPES=$CORE ;;
esac
TUNE=${TUNE:-16384,768,4608;8192,4096,14336}
PEERS=${PEERS:-swigen,eager,compile,liger,quack}
WHEELS=${WHEELS:-.whl-peers}
export SWIGEN_REV=${SWIGEN_REV:-$($SW version 2>/dev/null | awk '/revision/ {print $2; exit}')}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'

# shellcheck source=bench/peer_wheels.sh
. bench/peer_wheels.sh

if [[ ${OVERHEAD:-0} == 1 ]]; then
	PKG=$(mktemp -d)
	$SW emit --arch sm_90a --py-package ov_gateup -o "$PKG/ov_gateup" --kernel fwd_gateup --store-out >"$LOG/emit-ov.log" 2>&1
	$SW emit --arch sm_90a --py-package ov_bwd -o "$PKG/ov_bwd" --kernel bwd_dswiglu --store-out --major-b mn >>"$LOG/emit-ov.log" 2>&1
	$SW emit --arch sm_90a --py-package ov_gemm -o "$PKG/ov_gemm" --kernel gemm >>"$LOG/emit-ov.log" 2>&1
	timeout 120 python3 bench/py_perf.py --overhead --packages "$PKG/ov_gateup:$PKG/ov_bwd:$PKG/ov_gemm" --json "$LOG/py-overhead.json" | tee "$LOG/py-overhead.log" | grep '^overhead'
	exit "${PIPESTATUS[0]}"
fi

install_wheels
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}

# The order the workers take the shapes in: TUNE shapes first (each to its own worker).
IFS=';' read -ra tune <<<"$TUNE"
IFS=';' read -ra all <<<"$SHAPES"
order=()
for s in "${tune[@]}"; do [[ ";$SHAPES;" == *";$s;"* ]] && order+=("$s"); done
for s in "${all[@]}"; do [[ ";$TUNE;" == *";$s;"* ]] || order+=("$s"); done
# Each GPU's shapes (bench/py_table.py --plan: longest first onto the least
# loaded GPU, by its estimate of each shape's seconds); SHARD=i/n keeps the
# i-th of n parts of the shapes for this call (a suite over several calls).
mapfile -t plan < <(python3 bench/py_table.py --plan "$(IFS=';'; echo "${order[*]}")" --tune "$TUNE" \
	--families "$PEERS" --workers "$NG" ${SHARD:+--shard "$SHARD"}) || exit 2
((${#plan[@]} == NG + 1)) || { echo "py_table.py --plan: ${plan[*]}"; exit 2; }
# The emit order: every GPU's first shape, then every GPU's second, ...
order=()
for ((j = 0; ; j++)); do
	more=0
	for ((g = 0; g < NG; g++)); do
		IFS=';' read -ra mine <<<"${plan[g]}"
		((j < ${#mine[@]})) && order+=("${mine[j]}") && more=1
	done
	((more)) || break
done
echo "shapes: ${#order[@]} on $NG GPU(s)${SHARD:+ (shard $SHARD)}, tuned peers at: $TUNE (QuACK tuned autotunes ~105 s a shape: only there); limit ${LIMIT}s; peers: $PEERS; ${plan[NG]#\# }"

# Emit every shape's packages in the background, in the workers' order;
# each shape's <tag>.ready tells py_perf.py its packages are there.
PKG=$(mktemp -d)
emit_shape() { # emit_shape M,K,I
	local s=$1 tag
	tag=s$(echo "$s" | tr ',' 'x')
	{
		$SW emit --arch sm_90a --py-package "${tag}_train" -o "$PKG/${tag}_train" --kernel fwd_gateup --store-out --shape "$s" &
		$SW emit --arch sm_90a --py-package "${tag}_infer" -o "$PKG/${tag}_infer" --kernel fwd_gateup --shape "$s" &
		$SW emit --arch sm_90a --py-package "${tag}_bwd" -o "$PKG/${tag}_bwd" --kernel bwd_dswiglu --store-out --major-b mn --shape "$s" &
		[[ ${DOWN_AB:-0} == 1 ]] && $SW emit --arch sm_90a --py-package "${tag}_down" -o "$PKG/${tag}_down" --kernel fwd_down --shape "$s" &
		wait
	} >"$LOG/emit-$tag.log" 2>&1
	touch "$PKG/$tag.ready"
}
export -f emit_shape
export SW PKG LOG
printf '%s\n' "${order[@]}" | xargs -P "${EMIT_JOBS:-$(($(nproc) / 4 > 2 ? $(nproc) / 4 : 2))}" -I{} bash -c 'emit_shape {}' &
EMITTER=$!

pids=()
for ((g = 0; g < NG; g++)); do
	mine=${plan[g]:-}
	[[ -z $mine ]] && continue
	CUDA_VISIBLE_DEVICES=$g python3 bench/py_perf.py --compare "$mine" --tune "$TUNE" --families "$PEERS" \
		--packages "$PKG" --deadline "$DEADLINE" --json-dir "$LOG/records" $([[ ${DOWN_AB:-0} == 1 ]] && echo --down-ab) \
		${BREAKDOWN:+--breakdown "$BREAKDOWN"} \
		>"$LOG/worker$g.log" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
kill "$EMITTER" 2>/dev/null
grep -hE 'rror|^sm_90a' "$LOG"/emit-*.log | sort | uniq -c | sort -rn | head -8
cat "$LOG"/worker*.log | grep -vE '^\s*$' | grep -E '^[0-9]+,|skipped|FAILED|Error' | sort -t, -k1,1n -s >&2
cat "$LOG"/worker*.log | grep '^breakdown' | tee "$OUT/py-breakdown.txt"
echo
python3 bench/py_table.py "$LOG/records" --json "$OUT/py-peers.json"
echo "workers rc=$rc; $(($(date +%s) - START)) s"
exit $rc
