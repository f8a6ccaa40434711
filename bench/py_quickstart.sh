#!/usr/bin/env bash
# Follows README.md's "Using swigen from PyTorch" block as a new user
# would, on a GPU machine with torch and the CUDA compiler (carry .bin/
# with swigen; the block's `swigen` is .bin/swigen). The block is read
# from the README itself: its shell lines (swigen ..., pip ...) run in a
# fresh directory with a fresh virtual environment that sees only torch's
# install directory, then its Python lines run in the directory the shell
# lines ended in (the block's scratch directory), followed by a check that
# every gradient came back finite. Prints PASS or FAIL last and exits
# non-zero on FAIL: a crash of the Python lines is a FAIL too.
# tests/py_quickstart_test.go runs it with a stubbed python, swigen and pip.
set -u -o pipefail
export PATH=$PWD/.bin:/usr/local/cuda/bin:$PATH
export PIP_DEFAULT_TIMEOUT=5 PIP_RETRIES=0 # a machine without an index fails fast
REPO=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The block's own mktemp (its scratch directory) lands in $WORK too.
mkdir "$WORK/tmp" && export TMPDIR=$WORK/tmp
block=$(awk '/^## Using swigen from PyTorch/ {on=1; next} on && /^## / {exit} on && /^    / {sub(/^    /, ""); print}' README.md)
[[ -n $block ]] || { echo "FAIL: no PyTorch block in README.md"; exit 1; }
shell=$(grep -E '^(swigen|pip|cd) ' <<<"$block" | sed -E 's/[[:space:]]+#.*$//')
py=$(grep -vE '^(swigen|pip|cd) ' <<<"$block")
# The venv sees torch (and what torch's install directory holds) through a
# .pth file: a plain venv does not see a user-site or other-prefix torch.
torch_site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))') || { echo "FAIL: no torch here"; exit 1; }
python3 -m venv "$WORK/venv" || { echo "FAIL: venv"; exit 1; }
# shellcheck disable=SC1091
source "$WORK/venv/bin/activate"
echo "$torch_site" >"$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/system-torch.pth"
cp -r "$REPO/python" "$WORK/python"
cd "$WORK" || exit 1
echo "== shell lines"; echo "$shell"
while IFS= read -r line; do
	echo "+ $line"
	if ! eval "$line" >"$WORK/step.log" 2>&1; then
		tail -5 "$WORK/step.log"
		if [[ $line == pip* ]] && grep -qiE 'network|connection|resolve|satisfies the requirement|no matching distribution' "$WORK/step.log"; then
			# This machine reaches no package index: the build backend
			# (setuptools) pip would fetch is the system's here.
			echo "  (no package index here: again with --no-build-isolation)"
			eval "${line/pip install/pip install --no-build-isolation}" >"$WORK/step.log" 2>&1 || { tail -5 "$WORK/step.log"; echo "FAIL: $line"; exit 1; }
		else
			echo "FAIL: $line"; exit 1
		fi
	fi
done <<<"$shell"
# $WORK plays the user's checkout (python/ is there): the block must put
# its packages in a directory of their own, not into the checkout.
for d in k_up k_down k_bwd; do
	[[ ! -e $WORK/$d ]] || { echo "FAIL: the README's block wrote $d/ into the checkout"; exit 1; }
done
echo "== python lines (in $PWD)"; echo "$py"
# The script sits where the block left the shell: Python imports the
# emitted packages from the script's directory.
cat >qs.py <<PY
$py
import math
grads = {"x": x.grad, **{n: p.grad for n, p in mlp.named_parameters()}}
bad = [n for n, g in grads.items() if g is None or not math.isfinite(float(g.float().norm()))]
import swigen_rt, os
assert os.path.dirname(swigen_rt.__file__).startswith("$WORK/venv"), swigen_rt.__file__
print("grads:", {n: round(float(g.float().norm()), 3) for n, g in grads.items() if g is not None})
if bad:
    raise SystemExit("FAIL: no finite gradient for %s" % bad)
print("PASS")
PY
python qs.py >"$WORK/qs.log" 2>&1
rc=$?
tail -5 "$WORK/qs.log"
if [[ $rc -ne 0 ]]; then
	grep -q '^FAIL' "$WORK/qs.log" || echo "FAIL: the README's Python lines exited $rc"
	exit 1
fi
