#!/usr/bin/env bash
# One device call for the MoE expert-layer comparison (issue #moe):
# bench/moe_perf.py times the SwiGLU experts (inference forward and
# training step, bf16) at Qwen3-30B-A3B and DeepSeek-V3 shapes, uniform
# and Zipf routing, for the peers of PEERS (default
# loop,loopgraph,grouped,swigen,liger; quack needs its own call, below)
# and checks each against an fp32 per-expert reference. swigen's entry is
# SwiGLUExperts. With .bin/swigen (carry .bin/, built by bash
# bench/build.sh) it first emits the grouped kernel package
# packages (swigen emit --arch sm_90a --py-package of moe_fwd_gateup, its
# --store-out training variant and moe_bwd_dswiglu --store-out, the
# machine's nvcc; MOE_EMIT replaces the three with one, MOE_PKG=0 skips
# them): the GPU tests' KernelTest runs on the first and the swigen peer
# launches their kernels (moe_perf.py --package); the down projection and
# the weight gradients stay on torch._grouped_mm unless MOE_ALL=1 emits
# moe_gemm and moe_wgrad packages too (the swigen peer then runs them).
# Without .bin/swigen everything is the reference path, as the records
# say.
#
# MODELS (default qwen3,deepseek) are spread over the GPUs (GPUS, default
# all), one worker each; on one GPU they run in turn. TOKENS (default each
# model's two T), ROUTINGS (default uniform,zipf), REPS (default 30).
# ISOLATE=1 (the default) runs each peer of a worker in a Python process
# of its own for each model, so a peer's peak memory is measured in a
# process that holds only the problem and its own tensors (a model's
# peers all run before the next model's, so a run cut by LIMIT still
# compares the peers it reached; one process for all peers let
# earlier peers' allocations and the allocator's fragments decide what
# fits: DeepSeek-V3's step ran out of 80 GB that way); ISOLATE=0 runs a
# worker's peers in one process (~10 s less per peer, the former way).
# Memory alone, both peers with a model (about 6 minutes on one H100):
#   PEERS=grouped,swigen TESTS=0 REPS=5 bash bench/moe_perf.sh
# LIMIT (default 450 s) bounds the run: peers that would start after it
# are skipped with a line, and no process starts after it.
#
# Wheels: as bench/py_perf.sh, from .whl-peers/ (carry it; see
# bench/peer_wheels.sh): Liger (.whl-peers/liger) and two of the three
# cu13 parts in the first call, QuACK (.whl-peers/quack) and the third
# part in the next call on the same warm machine with PEERS=quack.
#
# First the GPU tests of SwiGLUExperts (python/tests/gpu/test_moe.py; log in
# $OUT/moe-tests.log; TESTS=0 skips them). Writes $OUT/moe-perf.json (command, revision, GPU, date, every record)
# and $OUT/moe-perf.tgz (the workers' logs); prints the table last and a
# PASS/FAIL line (FAIL: a peer raised, or an error above tolerance).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
START=$(date +%s)
LIMIT=${LIMIT:-450}
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/moe-perf.tgz" -C "$LOG" .' EXIT
PEERS=${PEERS:-loop,loopgraph,grouped,swigen,liger}
MODELS=${MODELS:-qwen3,deepseek}
export MOE_CMD="MOE_PKG=${MOE_PKG:-1} MOE_ALL=${MOE_ALL:-0} ISOLATE=${ISOLATE:-1} MODELS=$MODELS PEERS=$PEERS TOKENS=${TOKENS:-} ROUTINGS=${ROUTINGS:-uniform,zipf} REPS=${REPS:-30} LIMIT=$LIMIT GPUS=${GPUS:-all} bash bench/moe_perf.sh"
export SWIGEN_REV=${SWIGEN_REV:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
# shellcheck source=bench/peer_wheels.sh
. bench/peer_wheels.sh
install_wheels
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}

# The grouped kernel package, where .bin/swigen is here.
export PATH=/usr/local/cuda/bin:$PATH
MOE_DIR=""
MOE_DIRS=()
erc=skipped
if [[ ${MOE_PKG:-1} == 1 && -x .bin/swigen ]]; then
	PKG=$(mktemp -d)
	erc=0
	# One package per grouped op; MOE_EMIT (flags) replaces the three with one.
	if [[ -n ${MOE_EMIT:-} ]]; then emits=("$MOE_EMIT"); else
		emits=("--kernel moe_fwd_gateup" "--kernel moe_fwd_gateup --store-out" "--kernel moe_bwd_dswiglu --store-out")
		# MOE_ALL=1: the down projection (moe_gemm) and the weight
		# gradients (moe_wgrad) on swigen's kernels too; only dx and the
		# down projection's input gradient stay on torch._grouped_mm.
		[[ ${MOE_ALL:-0} == 1 ]] && emits+=("--kernel moe_gemm" "--kernel moe_wgrad")
	fi
	for i in "${!emits[@]}"; do
		# shellcheck disable=SC2086  # each entry is a list of flags
		if .bin/swigen emit ${emits[$i]} --arch sm_90a --py-package swigen_moe$i -o "$PKG/swigen_moe$i" >"$OUT/moe-emit-$i.log" 2>&1; then
			MOE_DIRS+=("$PKG/swigen_moe$i")
			grep -E '^sm_90a' "$OUT/moe-emit-$i.log"
		else
			erc=1
			echo "FAIL: swigen emit ${emits[$i]} (log $OUT/moe-emit-$i.log):"
			tail -5 "$OUT/moe-emit-$i.log"
		fi
	done
	MOE_DIR=${MOE_DIRS[0]:-}
else
	echo "no grouped kernel package (MOE_PKG=${MOE_PKG:-1}, .bin/swigen $([[ -x .bin/swigen ]] && echo present || echo absent)): swigen runs the reference path"
fi
export SWIGEN_MOE_PACKAGE=$MOE_DIR
# The three default packages: the training and backward kernel tests too.
if [[ -z ${MOE_EMIT:-} && ${#MOE_DIRS[@]} -ge 3 ]]; then
	export SWIGEN_MOE_TRAIN_PACKAGE=${MOE_DIRS[1]} SWIGEN_MOE_BWD_PACKAGE=${MOE_DIRS[2]}
fi

# The GPU tests of SwiGLUExperts first (python/tests/gpu/test_moe.py, ~1 min;
# TESTS=0 skips them).
trc=skipped
if [[ ${TESTS:-1} == 1 ]]; then
	(cd python/tests && CUDA_VISIBLE_DEVICES=0 timeout "${TEST_LIMIT:-240}" python3 -m unittest -v gpu.test_moe) >"$OUT/moe-tests.log" 2>&1
	trc=$?
	grep -E " \.\.\. |^(FAIL|ERROR)|Error:|^Ran |^OK|^FAILED" "$OUT/moe-tests.log" | head -40
fi

NG=${GPUS:-$(nvidia-smi -L | wc -l)}
((NG < 1)) && NG=1
IFS=',' read -ra models <<<"$MODELS"
args=(--routings "${ROUTINGS:-uniform,zipf}" --reps "${REPS:-30}" --deadline $((START + LIMIT)))
for d in "${MOE_DIRS[@]}"; do args+=(--package "$d"); done
[[ -n ${TOKENS:-} ]] && args+=(--tokens "$TOKENS")
echo "models: $MODELS on $NG GPU(s); peers: $PEERS; limit ${LIMIT}s; a process per peer: ${ISOLATE:-1}"
# run_peer G MODELS PEERS JSON: one moe_perf.py process on GPU G. Past the
# limit none starts (each costs ~5 s of imports and CUDA start): a record
# says so. A process that exits without writing JSON gets an error record,
# so the merged JSON names every model and peer asked for.
run_peer() {
	local g=$1 m=$2 p=$3 j=$4 prc=0 key=error why
	if (($(date +%s) > START + LIMIT)); then
		key=skipped why="past the deadline (no process started)"
	else
		CUDA_VISIBLE_DEVICES=$g python3 bench/moe_perf.py --models "$m" --peers "$p" "${args[@]}" --json "$j" \
			>>"$LOG/worker$g.log" 2>&1 || prc=$?
		[[ -s $j ]] && return $prc
		((prc == 0)) && prc=1
		why="its process exited with status $prc and wrote no record (worker$g.log in moe-perf.tgz)"
	fi
	python3 - "$j" "$m" "$p" "$key" "$why" <<'PY'
import json, sys
j, models, peers, key, why = sys.argv[1:]
recs = [{"model": m, "T": 0, "routing": "-", "peer": p, "mode": mode, key: why}
        for m in models.split(",") for p in peers.split(",") for mode in ("fwd", "step")]
json.dump({"command": "moe_perf.py --models %s --peers %s" % (models, peers), "results": recs}, open(j, "w"))
PY
	return $prc
}
# worker G MODELS: the models' peers on GPU G, a process for each model and
# peer, the models outer so that each model's peers finish before the next
# model starts (ISOLATE=1), or all in one process (ISOLATE=0); a process
# that fails does not stop the next.
worker() {
	local g=$1 mine=$2 rc=0 m p
	if [[ ${ISOLATE:-1} != 1 ]]; then
		run_peer "$g" "$mine" "$PEERS" "$LOG/moe-$g.json"
		return
	fi
	IFS=',' read -ra ms <<<"$mine"
	IFS=',' read -ra ps <<<"$PEERS"
	for m in "${ms[@]}"; do
		for p in "${ps[@]}"; do
			run_peer "$g" "$m" "$p" "$LOG/moe-$g-$m-$p.json" || rc=1
		done
	done
	return $rc
}
pids=()
for ((g = 0; g < NG && g < ${#models[@]}; g++)); do
	mine=""
	for ((j = g; j < ${#models[@]}; j += NG)); do mine="${mine:+$mine,}${models[j]}"; done
	worker "$g" "$mine" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
grep -hE '^(qwen3|deepseek) ' "$LOG"/worker*.log
grep -hE 'Error|error' "$LOG"/worker*.log | sort | uniq -c | sort -rn | head -5
# One record of every worker's results, then the table of all of them.
python3 - "$OUT/moe-perf.json" "$LOG"/moe-*.json <<'PY'
import json, os, sys
sys.path.insert(0, "bench")
import moe_perf
recs = [json.load(open(f)) for f in sys.argv[2:] if os.path.exists(f)]
recs.sort(key=lambda rec: "gpu" not in rec)  # a real process's first: its gpu, revision and date head the record
if not recs:
    print("FAIL: no worker wrote a record (see the workers' logs in moe-perf.tgz)")
    sys.exit(1)
out = dict(recs[0], command=os.environ["MOE_CMD"], results=[r for rec in recs for r in rec["results"]],
           workers=[rec["command"] for rec in recs])
json.dump(out, open(sys.argv[1], "w"), indent=1)
moe_perf.summary(out["results"])
sys.exit(0 if all("error" not in r and r.get("ok", True) for r in out["results"]) else 1)
PY
brc=$?
echo
printf '%-10s %s\n' "emit" "$([[ $erc == skipped ]] && echo "skipped (reference path only)" || { [[ $erc == 0 ]] && echo "PASS ($MOE_DIR)" || echo "FAIL ($OUT/moe-emit-*.log)"; })"
printf '%-10s %s\n' "tests" "$([[ $trc == skipped ]] && echo skipped || { [[ $trc == 0 ]] && echo PASS || echo "FAIL (rc $trc, $OUT/moe-tests.log)"; })"
printf '%-10s %s\n' "bench" "$([[ $rc == 0 && $brc == 0 ]] && echo PASS || echo "FAIL (workers rc $rc, table rc $brc)")"
echo "$(($(date +%s) - START)) s"
[[ $rc == 0 && $brc == 0 && ($trc == 0 || $trc == skipped) && $erc != 1 ]]
