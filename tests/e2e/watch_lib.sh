# The module's watch through watch_nl.py (a plain netlink socket, not
# hvctl), for the .t files that test it; sourced after lib.sh.

W=$HVT_ROOT/tests/e2e/watch_nl.py
OUT=/tmp/watch.json

# watch_bg SETTINGS...: arm with SETTINGS, in the background until
# watch_end, which disarms; the captures are then in $OUT.
watch_bg() {
	rm -f "$OUT" /tmp/watch.ready
	"$PYTHON" "$W" run "$OUT" 600 /tmp/watch.ready "$@" &
	WATCH_PID=$!
	while [ ! -e /tmp/watch.ready ]; do
		kill -0 "$WATCH_PID" 2>/dev/null || fail "watch_nl.py run ended early"
		sleep 0.1
	done
	[ -s /tmp/watch.ready ] && fail "arming: $(cat /tmp/watch.ready)"
}

watch_end() {
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID" || fail "watch_nl.py run failed"
	[ -s "$OUT" ] || fail "no captures file"
}

# watch SETTINGS... -- GUEST ARGS...: arm with SETTINGS, run hvguest,
# give the post windows time to end, disarm; the captures are in $OUT
# and the guest's line in $GUEST_LINE.
watch() {
	local settings=()

	while [ "$1" != -- ]; do
		settings+=("$1")
		shift
	done
	shift
	watch_bg "${settings[@]}"
	GUEST_LINE=$(guest "$@") || exit 1
	sleep 0.5
	watch_end
}

# cap EXPR: EXPR over d (the captures file), caps = d['captures'].
cap() {
	py "(lambda caps, st: $1)(d['captures'], d['status'])" <"$OUT"
}

# The port of an IOIO exit record (SVM EXITINFO1 bits 31:16).
PORT="(r['info1'] >> 16)"

# watch_vals EXPR: EXPR over d (the captures file) with
# tests/e2e/watch_vals.py's stall window helpers.
watch_vals() {
	"$PYTHON" "$HVT_ROOT/tests/e2e/watch_vals.py" "$1" <"$OUT"
}
