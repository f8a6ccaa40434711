#!/usr/bin/env bash
# One device call over the GPU paths of every command, for a refactor of
# the CLI or of the libraries under it (tests/cli_compare.sh covers the
# CPU paths): SW is the binary under test (default .bin/swigen), OLD an
# earlier one whose bench bwd and tune run interleaved with SW's, in this
# call, for the A/B. Each command's output goes to $OUT/cli-gpu.tgz; the
# table printed last gives each command's exit code, wall time and last
# line.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
SW=${SW:-./.bin/swigen}
OLD=${OLD:-}
LOG=$(mktemp -d)
trap 'tar -czf "$OUT/cli-gpu.tgz" -C "$LOG" .' EXIT
S=16384,768,4608
rows=()
n=0
run() { # run LABEL CMD...: logs to $LOG/NN-LABEL.log
	local label=$1; shift
	n=$((n + 1))
	local log=$LOG/$(printf %02d $n)-$label.log t0 rc
	t0=$(date +%s.%N)
	"$@" >"$log" 2>&1
	rc=$?
	rows+=("$(printf '%-24s rc=%-3s %6.1fs  %s' "$label" "$rc" "$(awk "BEGIN{print $(date +%s.%N) - $t0}")" "$(grep -v '^\s*$' "$log" | tail -1 | cut -c1-110)")")
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
run doctor $SW doctor
run verify-catalog $SW verify --catalog
run verify-unfused $SW verify --path unfused --json
run verify-probe-trace $SW verify --probe trace
run verify-probe-hang $SW verify --probe hang
for b in $SW $OLD; do
	tag=$([[ $b == "$SW" ]] && echo new || echo old)
	run "bench-bwd-$tag" $b bench bwd --shape $S --reps 60 --json "$LOG/records-$tag"
done
run bench-bwd-trace $SW bench bwd --shape $S --probe trace
run bench-bwd-unfused $SW bench bwd --shape 8192,8192,3584 --path unfused
run bench-gateup-train $SW bench gateup --store-out --shape $S
run bench-gemm $SW bench gemm --shape 4096,4096,4096
run bench-mlp $SW bench mlp --check --shape $S --json "$LOG/records-mlp"
run tune-bwd $SW tune --shape $S --db "$LOG/tune-bwd.json"
run tune-gateup $SW tune --kernel fwd_gateup --shape $S --db "$LOG/tune-gateup.json"
run tune-gemm $SW tune --kernel gemm --shape 4096,4096,4096 --max 3 --db "$LOG/tune-gemm.json" -v
echo
printf '%s\n' "${rows[@]}"
