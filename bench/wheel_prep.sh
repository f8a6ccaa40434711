#!/usr/bin/env bash
# Prepares .whl-swigen/ for bench/wheel_check.sh (run here, where Go and
# the pinned compiler are; carry .whl-swigen and .bin): the sm_90a wheel,
# and, for each shape of TIME_SHAPES, the packages the check times it
# against, emitted with the same compiler so only the configs differ:
# <tag>_gu (fwd_gateup --store-out), <tag>_dn (fwd_down), <tag>_bm
# (bwd_dswiglu --store-out, W_down MN-major: bench/py_perf.sh's recipe,
# and the wheel's) and <tag>_bk (the same, K-major: a transposed W_down
# each backward), tag s<M>x<K>x<I>.
set -euo pipefail
cd "$(dirname "$0")/.."
TIME_SHAPES=${TIME_SHAPES:-16384,768,4608;8192,4096,14336;2048,2048,768;128,4096,14336}
rm -rf .whl-swigen
mkdir -p .whl-swigen/emitted
go build -o .whl-swigen/swigen ./cmd/swigen
SW=.whl-swigen/swigen
$SW wheel --arch sm_90a -o .whl-swigen
IFS=';' read -ra shapes <<<"$TIME_SHAPES"
for s in "${shapes[@]}"; do
	tag=s$(echo "$s" | tr ',' 'x')
	d=.whl-swigen/emitted
	$SW emit --arch sm_90a --py-package "${tag}_gu" -o "$d/${tag}_gu" --kernel fwd_gateup --store-out --major-b k --shape "$s" >/dev/null
	$SW emit --arch sm_90a --py-package "${tag}_dn" -o "$d/${tag}_dn" --kernel fwd_down --major-b k --shape "$s" >/dev/null
	$SW emit --arch sm_90a --py-package "${tag}_bm" -o "$d/${tag}_bm" --kernel bwd_dswiglu --store-out --major-b mn --shape "$s" >/dev/null
	$SW emit --arch sm_90a --py-package "${tag}_bk" -o "$d/${tag}_bk" --kernel bwd_dswiglu --store-out --major-b k --shape "$s" >/dev/null
done
rm .whl-swigen/swigen
echo "$TIME_SHAPES" >.whl-swigen/emitted/TIME_SHAPES
du -sh .whl-swigen
