# Privilege, exactly as documented: observing (status, config, stat) needs
# CAP_PERFMON or CAP_SYS_ADMIN, changing and draining (set-threshold,
# filter, buffer, start, stop, clear, drain, record, the "events" group)
# CAP_SYS_ADMIN, both in the initial user namespace, from the initial
# network namespace. Root processes holding every capability but those
# are refused everywhere, and a refusal changes nothing.
. "$(dirname "$0")/lib.sh"

MCAST="$PYTHON $(dirname "$0")/nl_mcast.py"

reset_config
hv set-threshold 75us
hv filter vcpu 3
before=$("$HVCTL" -j config)

# as CAPS CMD...: CMD as root whose bounding set lacks CAPS (e.g. -sys_admin).
as() {
	local caps=$1

	shift
	setpriv --bounding-set="$caps" -- "$@"
}

# refused WHO PATTERN CMD...: fails, says PATTERN, changes nothing.
refused() {
	local who=$1 pat=$2 out rc

	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "$who: accepted: ${*:3}"
	grep -qE "$pat" <<<"$out" || fail "$who: '${*:3}' said '$out', want /$pat/"
	[ "$("$HVCTL" -j config)" = "$before" ] || fail "$who: '${*:3}' changed the config"
	echo "  $who: refused: ${*:3}: $(head -n 1 <<<"$out")"
}

# Every change and every drain, as a process without CAP_SYS_ADMIN (it
# keeps CAP_NET_ADMIN, which GENL_ADMIN_PERM would have accepted).
changes_refused() {
	local who=$1 caps=$2

	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" set-threshold 1us
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" filter vcpu 1
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" buffer --size 64
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" start
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" stop
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" clear
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" drain
	refused "$who" CAP_SYS_ADMIN as "$caps" "$HVCTL" record -o /tmp/priv.t --duration 1s
	[ ! -e /tmp/priv.t ] || fail "$who: a refused record left /tmp/priv.t"
	out=$(as "$caps" $MCAST join)
	expect_eq "$who: joins the events group" "refused EPERM" "$out"
}

# 1. Every capability but CAP_SYS_ADMIN: observing works (CAP_PERFMON),
# nothing changes.
as -sys_admin "$HVCTL" status >/dev/null || fail "CAP_PERFMON: status refused"
as -sys_admin "$HVCTL" -j stat >/dev/null || fail "CAP_PERFMON: stat refused"
[ "$(as -sys_admin "$HVCTL" -j config)" = "$before" ] ||
	fail "CAP_PERFMON: config differs"
echo "  every capability but CAP_SYS_ADMIN: status, stat, config work"
changes_refused "no CAP_SYS_ADMIN" -sys_admin

# 2. Neither CAP_SYS_ADMIN nor CAP_PERFMON: refused everywhere.
for cmd in status stat config; do
	refused "no SYS_ADMIN, no PERFMON" "CAP_PERFMON or CAP_SYS_ADMIN" \
		as -sys_admin,-perfmon "$HVCTL" "$cmd"
done
changes_refused "no SYS_ADMIN, no PERFMON" -sys_admin,-perfmon

# 3. Root of a user namespace has every capability there, none in the
# initial one.
refused "user-namespace root" "CAP_PERFMON or CAP_SYS_ADMIN" \
	unshare --user --map-root-user "$HVCTL" status
refused "user-namespace root" CAP_SYS_ADMIN \
	unshare --user --map-root-user "$HVCTL" set-threshold 1us

# 4. Another network namespace, as full root: the family is not there.
refused "other netns" "not loaded|hvtrace" unshare --net "$HVCTL" status
refused "other netns" "not loaded|hvtrace" unshare --net "$HVCTL" set-threshold 1us
out=$(unshare --net $MCAST id)
expect_eq "other netns: the family" "no family" "$out"

# 5. Multicast: a watermark reaches root in the initial namespace only,
# not a socket that joined the same group id from another namespace.
gid=$($MCAST id) || fail "cannot resolve the events group"
reset_config			# no filter: the guest's exits are recorded
hv buffer --size 4		# 16 records: half full after 8
hv start
# Both listening before the guest runs, and until its watermark has had
# time to arrive: not a fixed time (the debug kernel takes seconds to start
# python).
rm -f /tmp/priv.other.ready /tmp/priv.init.ready
unshare --net $MCAST listen "$gid" 300 /tmp/priv.other.ready >/tmp/priv.other &
other=$!
$MCAST listen "$gid" 300 /tmp/priv.init.ready >/tmp/priv.init &
init=$!
for _ in $(seq 600); do
	[ -f /tmp/priv.other.ready ] && [ -f /tmp/priv.init.ready ] && break
	sleep 0.1
done
if ! [ -f /tmp/priv.other.ready ] || ! [ -f /tmp/priv.init.ready ]; then
	kill "$other" "$init" 2>/dev/null
	fail "the listeners did not join within 60s"
fi
guest --cpu 1 --pio 50 >/dev/null	# one ring fills: one watermark
# The watermark goes out from a work item, long before this.
sleep 5
# (A listener refused in the other namespace has already exited.)
kill -TERM "$other" "$init" 2>/dev/null
wait "$other" "$init"
expect_eq "watermarks in the initial namespace" 1 "$(cat /tmp/priv.init)"
other_got=$(cat /tmp/priv.other)
case "$other_got" in
0|"refused"*) echo "  other netns: $other_got" ;;
*) fail "other netns received $other_got watermark messages" ;;
esac
hv stop
reset_config
