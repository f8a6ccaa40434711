#!/usr/bin/env bash
# Session 7, call 94: the -tags gpu test binaries after this session's
# changes (runtime/cu, runtime/ref, runtime/baseline, and the generated Go
# bindings of every kind on the GPU). Prediction: all pass.
. "$(dirname "$0")/lib.sh"
bash bench/gpu_tests.sh
log timeout 200 ./.bin/tests.test -test.run 'GeneratedBindings' -test.v
grep -E "^(--- |PASS|FAIL|ok)" $O/logs/$n.txt | tail -12
cd $O && tar czf logs.tgz logs gpu_test_*.txt && rm -rf logs
