#!/usr/bin/env bash
# The GPU checks of one wave of merged work, in two device calls that each
# fit the 10-minute limit (carry .bin/ from bench/build.sh and .bin-ab/, the
# previous revision's swigen as swigen.xz, for the A/B):
#   PHASE=verify  correctness: bench/gemm_epi_check.sh's verifies (ping-pong
#                 of every kind, the gemm space's new points), bench/
#                 streamk_check.sh's verifies (--repeat: bitwise), Python
#                 launches and sanitizers, bench/seed_epi_ab.sh's verifies;
#   PHASE=perf    timings: stream-K vs static vs cuBLAS, the gemm epilogue
#                 A/B against the old binary (one round), the seed epilogue
#                 A/B (one round), then the PyTorch GPU tests (py_check.sh);
#   PHASE=extra   the PyTorch GPU tests again and bench/harden_gpu_check.sh;
#   PHASE=users   bench/frontdoor_gpu_check.sh (the generated bindings, the
#                 README's PyTorch block) and bench/wheel_check.sh (carry
#                 .whl-swigen/ from bench/wheel_prep.sh too).
# Each part runs under its own time limit (a part that hangs cannot take the
# call with it); its console goes to $OUT/<part>.log and its last lines are
# printed; a PASS/FAIL line per part comes last.
set -u
PHASE=${PHASE:-verify}
OUT0=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT0"
if [ ! -x .bin-ab/swigen ] && [ -f .bin-ab/swigen.xz ]; then
	xz -dc .bin-ab/swigen.xz >.bin-ab/swigen && chmod +x .bin-ab/swigen
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
./.bin/swigen version 2>/dev/null | head -2
results=()
part() { # part NAME LIMIT_S TAIL_LINES CMD...: one script, bounded, logged
	local name=$1 limit=$2 lines=$3 d rc t0
	shift 3
	d=$(mktemp -d)
	t0=$(date +%s)
	OUT=$d timeout "$limit" "$@" >"$d/console.log" 2>&1
	rc=$?
	cp "$d/console.log" "$OUT0/$name.log"
	tar -czf "$OUT0/$name.tgz" -C "$d" . 2>/dev/null
	echo
	echo "==== $name: exit $rc in $(($(date +%s) - t0)) s"
	tail -n "$lines" "$d/console.log" | cut -c1-200
	results+=("$(printf '%-6s %-12s exit %3s  %4ss' "$([ $rc = 0 ] && echo PASS || echo FAIL)" "$name" "$rc" "$(($(date +%s) - t0))")")
}
case $PHASE in
verify)
	part gemm-epi 200 16 env VERIFY=1 BENCH=0 PLAN=0 OLD=.bin-ab bash bench/gemm_epi_check.sh
	part streamk 220 16 env VERIFY=1 BENCH=0 bash bench/streamk_check.sh
	part seed-epi 120 8 env VERIFY=1 TRACE=0 ROUNDS=0 bash bench/seed_epi_ab.sh
	;;
perf)
	part streamk 120 24 env VERIFY=0 BENCH=1 REPS=30 bash bench/streamk_check.sh
	part gemm-epi 130 22 env VERIFY=0 BENCH=1 PLAN=0 ROUNDS=1 REPS=30 OLD=.bin-ab \
		SHAPES="2048,7168,4096 4096,7168,4096 8192,8192,8192 16384,9216,768" bash bench/gemm_epi_check.sh
	part seed-epi 95 22 env VERIFY=0 TRACE=0 ROUNDS=1 REPS=30 \
		PAIRS="16384,768,4608|bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_l2k|bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_l2k bwd_dswiglu_sm90a_bf16_m128n192k64_s4_c1x1_pingpong_rn_g4_e64x32s4_pipe_l2k;4096,7168,2048|bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong|bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x32s4 bwd_dswiglu_sm90a_bf16_m128n128k64_s4_c1x1_pingpong_e64x32s4_pipe" \
		bash bench/seed_epi_ab.sh
	part py-check 170 14 env TEST_LIMIT=150 bash bench/py_check.sh
	;;
extra)
	part py-check 170 14 env TEST_LIMIT=150 bash bench/py_check.sh
	part harden 150 18 bash bench/harden_gpu_check.sh
	;;
users)
	part frontdoor 150 10 bash bench/frontdoor_gpu_check.sh
	part wheel 330 36 bash bench/wheel_check.sh # ~1 min of it test_moe.py on the wheel
	;;
*)
	echo "PHASE=$PHASE: want verify, perf, extra or users" >&2
	exit 2
	;;
esac
echo
echo "==== wave_check PHASE=$PHASE"
for r in "${results[@]}"; do echo "$r"; done
