# Sourced by bench/py_perf.sh and bench/moe_perf.sh: install_wheels puts
# the peers' wheels from $WHEELS (default .whl-peers; the machine has no
# network) into /tmp/site (*.whl with pip --no-deps --target, only
# distributions this Python lacks;
# NAME.tar.xz.partKofN unpacked once all N parts are here, which may take
# two device calls on one warm machine). Needs LOG (a directory) set.
WHEELS=${WHEELS:-.whl-peers}
install_wheels() { # into /tmp/site (again only when the set of files changed); prints what it did
	local site=/tmp/site whls sig name n parts
	mapfile -t whls < <(find "$WHEELS" -name '*.whl' 2>/dev/null | sort)
	sig=$(find "$WHEELS" \( -name '*.whl' -o -name '*.tar.xz.part*of*' \) -printf '%f %s\n' 2>/dev/null | sort | md5sum)
	if [[ -f $site/.sig && $(cat "$site/.sig") == "$sig" ]]; then
		echo "wheels: installed in $site by an earlier call"
		return
	fi
	rm -rf "$site" && mkdir -p "$site"
	# Only the distributions this Python lacks (torch's own cuda-bindings,
	# protobuf and the like stay as they are).
	mapfile -t whls < <(python3 - "${whls[@]}" <<-'PY'
		import sys
		from importlib import metadata
		for w in sys.argv[1:]:
		    name = w.rsplit("/", 1)[-1].split("-")[0]
		    try:
		        print("have %s %s" % (name, metadata.version(name)), file=sys.stderr)
		    except metadata.PackageNotFoundError:
		        print(w)
	PY
	)
	local w
	for w in "${whls[@]}"; do # one at a time: a wheel that fails costs only its own peer
		python3 -m pip install -q --no-deps --no-index --target "$site/.t" "$w" >>"$LOG/pip.log" 2>&1 ||
			echo "pip install of $(basename "$w") failed: $(tail -1 "$LOG/pip.log")"
		cp -a "$site/.t/." "$site/" 2>/dev/null && rm -rf "$site/.t"
	done
	# NAME.tar.xz.partKofN: unpacked once all N parts are here (they may
	# come in two device calls: the machine keeps ignored files while warm).
	for name in $(find "$WHEELS" -name '*.tar.xz.part*of*' -printf '%f\n' 2>/dev/null | sed 's/\.part[0-9]*of[0-9]*$//' | sort -u); do
		mapfile -t parts < <(find "$WHEELS" -name "$name.part*of*" -printf '%f %p\n' | sort -V | cut -d' ' -f2-)
		n=${parts[0]##*of}
		if ((${#parts[@]} < n)); then
			echo "$name: ${#parts[@]} of $n parts here: not unpacked (carry the others, in this call or the next)"
		else
			cat "${parts[@]}" | xz -d | tar -x -C "$site" || echo "unpacking $name failed"
		fi
	done
	echo "$sig" >"$site/.sig"
	echo "wheels: ${#whls[@]} from $WHEELS into $site"
}
