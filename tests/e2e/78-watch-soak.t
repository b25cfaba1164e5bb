# hvctl watch left running as hvtrace-watch.service runs it, for
# HVT_SOAK_MINUTES (make check-matrix; make check skips it): a guest makes
# one 30 ms slow exit an iteration among 20 fast ones, each a stall (20ms
# of the last 50ms; 200 fast ones can be one too under emulation). Every
# slow exit is a trigger, a capture or counted as suppressed, and few
# others are (under emulation a host's hiccup can hold the vCPU 20ms:
# 1 to 3 more in 3,500 seen in 2-minute runs, so at most 1 in 100); hvctl
# writes every capture the module made, keeps the newest --keep; its
# memory and the module's stay flat after the first minute; it ends
# with status 0 on SIGTERM.
. "$(dirname "$0")/lib.sh"

mins=${HVT_SOAK_MINUTES:-}
[ -n "$mins" ] || skip "a long run: make check-matrix runs it (HVT_SOAK_MINUTES)"
[[ $mins =~ ^[1-9][0-9]*$ ]] || fail "HVT_SOAK_MINUTES=$mins: a number of minutes"
[ "$mins" -ge 2 ] || fail "HVT_SOAK_MINUTES=$mins: at least 2 (memory is compared after the first)"
D=/tmp/soak
keep=5
WPID=
GPID=
trap 'kill $WPID $GPID 2>/dev/null' EXIT

rss_kib() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$1/status"
}
status_vals() {
	"$HVCTL" -j status | py "'%d %d' % (d['mem_bytes'], d['watch']['mem_bytes'])"
}

reset_config
rm -rf "$D"
"$HVCTL" watch -o "$D" --stall 20ms/50ms --keep $keep \
	>/tmp/soak.out 2>/tmp/soak.err &
WPID=$!
wait_armed "$WPID" /tmp/soak.err
"$HVGUEST" --pio 20 --slow 1:30000 --seconds $((mins * 60)) \
	>/tmp/soak-guest.out 2>&1 &
GPID=$!
sleep 60
rss0=$(rss_kib "$WPID")
mem0=$(status_vals)
echo "  after a minute: hvctl watch $rss0 KiB, module and watch memory $mem0 bytes"
# The memory again while the guest still runs (its vCPU's history goes
# with it), 15s before its end.
sleep $((mins * 60 - 75))
rss1=$(rss_kib "$WPID")
mem1=$(status_vals)
echo "  $((mins * 60 - 15))s in: hvctl watch $rss1 KiB, module and watch memory $mem1 bytes"
wait "$GPID" || fail "the guest failed: $(cat /tmp/soak-guest.out)"
GPID=
r=$(grep '^HVGUEST ' /tmp/soak-guest.out | tail -n 1)
slow=$(field slow "$r")
# The last captures' post windows and writes.
sleep 2
vals=$("$HVCTL" -j status |
	py "' '.join(str(d['watch'][k]) for k in ('captures', 'suppressed_busy', 'suppressed_rate', 'suppressed_total'))")
read -r caps busy rate total <<<"$vals"
echo "  $mins minutes: $slow slow exits; $caps captures, suppressed $busy busy, $rate rate, $total total"
kill -TERM "$WPID"
wait "$WPID" || fail "hvctl watch exited $? on SIGTERM: $(cat /tmp/soak.err)"
WPID=
triggers=$((caps + busy + rate + total))
expect_eq "triggers: every slow exit, and at most 1 in 100 more" True \
	"$([ "$triggers" -ge "$slow" ] && [ "$triggers" -le $((slow + slow / 100 + 2)) ] && echo True || echo "False: $triggers")"
expect_eq "captures written by hvctl watch: the module's" "$caps" \
	"$(grep -cE '^[0-9:.]+ [a-z]+ vm [0-9]+ vcpu [0-9]+: ' /tmp/soak.out)"
expect_eq "captures kept: the newest $keep" \
	"$((caps < keep ? caps : keep))" \
	"$(find "$D" -mindepth 1 -maxdepth 1 -type d -name '2*' | wc -l)"
expect_eq "the module's memory and the watch's, after a minute and near the end" \
	"$mem0" "$mem1"
expect_eq "hvctl watch's memory grew less than 1 MiB after the first minute" True \
	"$([ $((rss1 - rss0)) -lt 1024 ] && echo True || echo "False: $rss0 -> $rss1 KiB")"
expect_eq "hvctl watch's standard error: its first line, then its count" \
	"watching: stall 20ms/50ms; $caps captures written, 0 dropped for a full disk" \
	"$(sed -n '1s/,.*//p' /tmp/soak.err); $(sed -n '2,$p' /tmp/soak.err)"
