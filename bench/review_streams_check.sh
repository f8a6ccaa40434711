#!/usr/bin/env bash
# One device call for the reviewer's fix: a stream-K launch.Kernel on two
# streams at once (lab/check TestGPUStreamKTwoStreams; each stream its
# own workspace). Needs .bin/check.test (bash bench/build.sh, carry .bin/).
# Log: $OUT/review-streams.txt; the last line is PASS or FAIL.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/swigen-out}
mkdir -p "$OUT"
(cd lab/check && timeout 420 ../../.bin/check.test -test.v -test.count=1 -test.run 'TestGPUStreamKTwoStreams$') >"$OUT/review-streams.txt" 2>&1
rc=$?
tail -5 "$OUT/review-streams.txt"
if [ $rc = 0 ] && grep -q -- '--- PASS: TestGPUStreamKTwoStreams' "$OUT/review-streams.txt"; then echo "two-streams stream-K  PASS"; else echo "two-streams stream-K  FAIL rc=$rc"; exit 1; fi
