# Sourced by the device-call scripts in bench/runs (run from the repo root on
# the GPU machine, .bin carried): the CUDA path, the output folder $O (the
# device tool's $OUT), the swigen binary $B, the common bwd name prefix $N,
# and run, which echoes a command, runs it and prints its exit status.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/out}
mkdir -p "$O/results"
B=./.bin/swigen
N=bwd_dswiglu_sm90a_bf16_m128n128k64
run() { echo; echo "=== $*"; "$@"; echo "(exit $?)"; }
# log runs a command with its full output in $O/logs/<n>.txt (n counts the
# calls), echoing the command and its exit status; the caller greps the file.
mkdir -p "$O/logs"
n=0
log() { n=$((n+1)); echo; echo "=== [$n] $*"; "$@" > "$O/logs/$n.txt" 2>&1; echo "(exit $?)"; }
