#!/usr/bin/env bash
# cli_compare.sh OLD NEW [CASES]: runs every case of CASES (default:
# tests/cli_cases.txt, one shell command line a line, $SW standing for
# the binary) with the OLD and the NEW swigen binary, each in a fresh working
# directory with its own HOME and build cache, and compares what a user sees:
# stdout, stderr, the exit code and the sha256 of every file the command
# wrote. It prints one line per differing case and exits 1 if any differ.
# A refactor of the CLI is behaviour-preserving when this prints nothing.
#
# Commands that need a GPU still run their flag parsing and bad-input paths
# here; their GPU work is checked on the H200 (bench/, verify --catalog).
set -uo pipefail
old=$(realpath "$1") new=$(realpath "$2")
cases=${3:-$(dirname "$0")/cli_cases.txt}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_case() { # bin dir line
	local bin=$1 dir=$2 line=$3
	mkdir -p "$dir/home" "$dir/cache" "$dir/wd"
	cp -r "$repo/bench/results/tune" "$dir/wd/tune-dbs" # inputs some cases read
	(
		cd "$dir/wd" || exit 1
		export HOME="$dir/home" SWIGEN_CACHE_DIR="$dir/cache" SW="$bin"
		eval "$line" >"$dir/stdout" 2>"$dir/stderr"
		echo $? >"$dir/rc"
	)
	rm -rf "$dir/wd/tune-dbs"
	# What the command wrote, by content; build-cache keys may embed the
	# binary's own hash, so only the working directory is compared.
	(cd "$dir/wd" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) >"$dir/files"
	# Paths of the temporary directory, durations and random temporary
	# names differ between any two runs.
	sed -E -i -e "s#$dir#DIR#g" -e 's/\b[0-9]+(\.[0-9]+)?(ns|µs|us|ms|s)\b/DUR/g' \
		-e 's/(write-check-)[0-9]+/\1N/g' "$dir/stdout" "$dir/stderr"
}

n=0 bad=0
while IFS= read -r line; do
	[[ -z $line || $line == \#* ]] && continue
	n=$((n + 1))
	run_case "$old" "$work/$n.old" "$line"
	run_case "$new" "$work/$n.new" "$line"
	for f in stdout stderr rc files; do
		if ! cmp -s "$work/$n.old/$f" "$work/$n.new/$f"; then
			echo "DIFF [$f] $line"
			diff "$work/$n.old/$f" "$work/$n.new/$f" | head -8 | sed 's/^/    /'
			bad=$((bad + 1))
		fi
	done
done <"$cases"
echo "cli_compare: $n cases, $bad differences"
[[ $bad == 0 ]]
