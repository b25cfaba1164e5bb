# Bad input: a clear error naming what was wrong, a non-zero exit, and an
# unchanged configuration.
. "$(dirname "$0")/lib.sh"

reset_config
hv set-threshold 75us
hv filter vcpu 3
before=$("$HVCTL" -j config)

# expect_reject MESSAGE-PATTERN CMD...: fails, says why, changes nothing.
expect_reject() {
	local pat=$1 out rc

	shift
	out=$("$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "accepted: $*"
	grep -qiE "$pat" <<<"$out" || fail "'$*' said '$out', want /$pat/"
	[ "$("$HVCTL" -j config)" = "$before" ] || fail "'$*' changed the config"
	echo "  rejected ($rc): $* -> $out" | head -n 1
}

expect_reject "missing unit" "$HVCTL" set-threshold 50
expect_reject "bad|unit|invalid" "$HVCTL" set-threshold 5xs
expect_reject "unknown exit reason 'nfp'" "$HVCTL" set-threshold 1us --reason nfp
expect_reject "unknown filter" "$HVCTL" filter bogus 1
expect_reject "out of range" "$HVCTL" filter vcpu 5000
expect_reject "no such CPU" "$HVCTL" filter cpu 4000
expect_reject "ends before" "$HVCTL" filter rip 0x2000-0x1000
expect_reject "out of range" "$HVCTL" buffer --size 2
expect_reject "out of range" "$HVCTL" buffer --size 300M
expect_reject "discard or overwrite" "$HVCTL" buffer --mode sideways
expect_reject "out of range" "$HVCTL" set-threshold 7200s
expect_reject "unknown command" "$HVCTL" frobnicate

# Not root: the kernel refuses, hvctl says so.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$HVCTL" status 2>&1)
[ $? -ne 0 ] || fail "non-root status accepted"
grep -q "not permitted" <<<"$out" || fail "non-root: '$out'"
echo "  non-root: $out"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$HVCTL" set-threshold 1us 2>&1)
[ $? -ne 0 ] || fail "non-root set-threshold accepted"
[ "$("$HVCTL" -j config)" = "$before" ] || fail "non-root changed the config"
reset_config

# A load parameter the netlink policy would refuse is refused at load,
# and the limit itself is taken.
rmmod hvtrace || fail "unload"
if modprobe hvtrace threshold_ns=3600000000001 2>/dev/null; then
	fail "threshold_ns above one hour loaded"
fi
dmesg | grep -q "threshold_ns=3600000000001 above the maximum 3600000000000" ||
	fail "no message for threshold_ns=3600000000001"
modprobe hvtrace threshold_ns=3600000000000 || fail "threshold_ns of one hour refused"
expect_eq "threshold_ns=3600000000000 at load" 3600000000000 \
	"$("$HVCTL" -j config | py "d['threshold_ns']")"
rmmod hvtrace && modprobe hvtrace || fail "reload"
