# SPDX-License-Identifier: GPL-2.0
# Helpers for the e2e tests. They run inside the test VM (tests/vm/run) or,
# with `make check-host`, on a real KVM host.

HVT_ROOT=${HVT_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
HVCTL=$HVT_ROOT/build/bin/hvctl
HVGUEST=$HVT_ROOT/tests/guest/hvguest

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "  $1 = $3"
}

# field KEY LINE: value of KEY=value in a HVGUEST line.
field() {
	local kv

	for kv in $2; do
		case "$kv" in
		"$1="*) echo "${kv#*=}"; return 0 ;;
		esac
	done
	return 1
}

# guest ARGS...: run hvguest, echo its HVGUEST result line; fail otherwise.
guest() {
	local out rc

	out=$("$HVGUEST" "$@")
	rc=$?
	[ $rc -eq 0 ] || fail "hvguest $* exited $rc: $out"
	echo "$out" | grep '^HVGUEST ' | tail -n 1
}
