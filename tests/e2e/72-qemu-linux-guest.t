# A real Linux guest: the host's qemu-system-x86_64 boots the running
# kernel with hvmark in its initramfs (tests/e2e/qemu-linux-guest), and
# hvmark's CPUID marks run in a guest of KVM here. The guest says exactly
# what it marked: N lines, ids ID to ID+N-1 in order, TSCs and
# monotonic times increasing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-linux-guest/lib.sh"

N=5
ID=100
OUT=/tmp/qlg-console

# host_checks: what the host saw of the guest's marks, against what the
# guest printed. GUEST_MARKS holds hvmark's lines ("hvmark: mark ID tsc
# TSC monotonic_ns NS", one a mark, in order), MARK_IDS and MARK_TSCS
# their ids and TSCs (arrays, index k is mark ID+k), QLG_PID the QEMU pid
# of the boot that ran (QLG_PIDS: every attempt's), for hvctl's filters.
# HOST-SIDE CHECKS GO HERE (hvctl record of the marks, being written in
# the module: HVTRACE_EV_MARK); until then, nothing.
host_checks() {
	:
}

qlg_boot "$OUT" "$N" "$ID" || fail "the Linux guest did not run hvmark"
echo "  boot: ${QLG_SECS}s (qemu $QLG_PID; attempts: $QLG_PIDS)"
grep -a '^QLG-INIT: hvmark exit' "$OUT" | tr -d '\r' | sed 's/^/  /'
expect_eq "hvmark's exit status in the guest" "QLG-INIT: hvmark exit 0" \
	"$(grep -a '^QLG-INIT: hvmark exit' "$OUT" | tr -d '\r')"

GUEST_MARKS=$(qlg_marks "$OUT")
echo "$GUEST_MARKS" | sed 's/^/  /'
expect_eq "hvmark lines" "$N" "$(grep -c . <<<"$GUEST_MARKS")"
MARK_IDS=() MARK_TSCS=() mono=()
k=0
while read -r w1 w2 id w4 tsc w6 ns rest; do
	[ "$w1 $w2 $w4 $w6" = "hvmark: mark tsc monotonic_ns" ] && [ -z "$rest" ] &&
		[[ $id =~ ^[0-9]+$ && $tsc =~ ^[0-9]+$ && $ns =~ ^[0-9]+$ ]] ||
		fail "not an hvmark line: '$w1 $w2 $id $w4 $tsc $w6 $ns $rest'"
	expect_eq "mark $k's id" "$((ID + k))" "$id"
	MARK_IDS+=("$id") MARK_TSCS+=("$tsc") mono+=("$ns")
	k=$((k + 1))
done <<<"$GUEST_MARKS"
for ((k = 1; k < N; k++)); do
	# Decimal u64s: compare as strings of one length (bash's are signed).
	[ "${#MARK_TSCS[k]}" -gt "${#MARK_TSCS[k - 1]}" ] ||
		{ [ "${#MARK_TSCS[k]}" = "${#MARK_TSCS[k - 1]}" ] &&
		  [[ ${MARK_TSCS[k]} > ${MARK_TSCS[k - 1]} ]]; } ||
		fail "mark $((ID + k))'s TSC ${MARK_TSCS[k]} not after ${MARK_TSCS[k - 1]}"
	[ "${mono[k]}" -gt "${mono[k - 1]}" ] ||
		fail "mark $((ID + k))'s monotonic_ns ${mono[k]} not after ${mono[k - 1]}"
	# -i 20ms: each mark at least 20 ms after the one before, as due.
	[ $((mono[k] - mono[0])) -ge $((k * 20000000)) ] ||
		fail "mark $((ID + k)) at +$((mono[k] - mono[0]))ns, before its $((k * 20))ms"
done
echo "  TSCs and monotonic times increase; marks 20ms apart or more"

host_checks
