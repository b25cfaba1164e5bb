# hvctl watch against the module: captures written whole into their
# directory, each a trace hvctl dump/report and babeltrace2 read, with a
# story line that names the trigger, the reason and the preemptor; a
# SIGTERM disarms, a kill -9 loses no finished capture, a full disk drops
# captures without leaving parts, --keep prunes, bad input changes nothing.
. "$(dirname "$0")/lib.sh"

D=/tmp/caps
WPID=

# captures: how many capture directories $D holds (hidden ones are not).
captures() {
	find "$D" -mindepth 1 -maxdepth 1 -type d -name '2*' | wc -l
}

# watch_start ARGS...: hvctl watch -o $D ARGS in the background, armed.
watch_start() {
	"$HVCTL" watch -o "$D" "$@" >/tmp/watch.out 2>/tmp/watch.err &
	WPID=$!
	wait_armed "$WPID" /tmp/watch.err
}

# wait_captures N: until $D holds N captures.
wait_captures() {
	for _ in $(seq 100); do
		[ "$(captures)" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "$(captures) captures in $D, want $1: $(cat /tmp/watch.err)"
}

# watch_stop: SIGTERM, it exits 0 and the watch is disarmed.
watch_stop() {
	kill -TERM "$WPID"
	wait "$WPID" || fail "hvctl watch exited $? on SIGTERM: $(cat /tmp/watch.err)"
	expect_eq "disarmed after SIGTERM" False \
		"$("$HVCTL" -j status | py "d['watch']['armed']")"
}

PORT="(e['info1'] >> 16)"

echo "# an exit trigger: the story, the capture's files, its trace"
rm -rf "$D"
watch_start --exit 20ms --history 16 --post 5ms
r=$(guest --pio 40 --slow 1:30000) || exit 1
wait_captures 1
watch_stop
rip_slow=$(field rip_slow "$r")
cat /tmp/watch.out
# The slow exit's capture: fast exits to port 0x80 before it, 16 but for
# host interrupts (the guest's first exits may be slow too: the VMM sets
# up).
line=$(grep -E ' exit vm .* before it 1[0-6] IOIO exits at port 0x80 ' /tmp/watch.out | head -n 1)
[[ $line =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\ exit\ vm\ [0-9]+\ vcpu\ 0:\ IOIO\ [0-9.]+ms ]] ||
	fail "story line: '$line'"
echo "  story: $line"
cap=$(echo "$line" | sed 's/.* -> //')
case "$cap" in
"$D"/2*-vm*-vcpu0) ;;
*) fail "capture path '$cap'" ;;
esac
[ -f "$cap/metadata" ] && [ -f "$cap/hvtrace/capture.json" ] &&
	[ -f "$cap/hvtrace/summary.txt" ] || fail "capture files: $(ls -R "$cap")"
expect_eq "nothing half-written left" 0 \
	"$(find "$D" -maxdepth 1 -name '.tmp-*' | wc -l)"
j=$(cat "$cap/hvtrace/capture.json")
expect_eq "capture.json: trigger, limit" "exit 20000000" \
	"$(echo "$j" | py "'%s %d' % (d['trigger'], d['limit_ns'])")"
ev=$("$HVCTL" -j dump "$cap") || fail "dump of the capture failed"
expect_eq "records: first_seq to end_seq" \
	"$(echo "$j" | py "d['end_seq'] - d['first_seq']")" \
	"$(echo "$ev" | events_check count ev)"
expect_eq "16 before the trigger's" 16 \
	"$(echo "$j" | py "d['trigger_seq'] - d['first_seq']")"
expect_eq "the slow exit is in it, once" 1 \
	"$(echo "$ev" | events_check count ev --where "e['rip'] == $rip_slow and $PORT == 0x81 and e['duration_ns'] >= 30000000")"
if command -v babeltrace2 >/dev/null; then
	expect_eq "babeltrace2 reads as many" \
		"$(echo "$ev" | events_check count ev)" \
		"$(babeltrace2 "$cap" | wc -l)"
fi
rep=$("$HVCTL" report "$cap") || fail "report of the capture failed"
echo "$rep" | head -n 12
echo "$rep" | head -n 3 | grep -q 'Capture' || fail "the report does not open with the capture"
echo "$rep" | grep -q 'IOIO' || fail "the report does not name the reason"

echo "# a preemption: the story names the hog"
rm -rf "$D"
watch_start --preempted 30ms
hog_spin 40 1000
wait_captures 1
watch_stop
line=$(grep ' preempted vm ' /tmp/watch.out | head -n 1)
echo "  story: $line"
[[ $line == *"hvhog ($HOG_PID)"* ]] || fail "the hog ($HOG_PID) is not named: $line"

echo "# guest marks: the story names the mark and the TSC the guest passed"
rm -rf "$D"
watch_start --guest-mark --history 16
r=$(guest --cpuid 1:0x48565400 --slow 1:20000 --seconds 0.2) || exit 1
wait_captures 1
watch_stop
line=$(grep ' mark vm ' /tmp/watch.out | head -n 1)
echo "  story: $line"
[[ $line =~ \ mark\ vm\ [0-9]+\ vcpu\ 0:\ guest\ mark\ ([0-9]+)\ \(guest\ tsc\ ([0-9]+)\) ]] ||
	fail "story line: '$line'"
expect_eq "the TSC the guest passed with mark ${BASH_REMATCH[1]}" \
	"$(field mark_tsc "$r" | tr , '\n' | sed -n "s/^${BASH_REMATCH[1]}://p")" \
	"${BASH_REMATCH[2]}"
echo "# ... only from the VMM allowed (--guest-mark=1: no VMM)"
rm -rf "$D"
watch_start --guest-mark=1 --exit 15ms
guest --cpuid 1:0x48565400 --slow 1:20000 --seconds 0.2 >/dev/null || exit 1
wait_captures 1
watch_stop
expect_eq "captures of the slow exits, none of a mark" "0" \
	"$(grep -c ' mark vm ' /tmp/watch.out)"
expect_eq "--guest-mark=abc (no VM of that name): refused" \
	"Error: --guest-mark abc: no running VM of that name or UUID (nor a pid)." \
	"$("$HVCTL" watch -o "$D" --guest-mark=abc 2>&1 | head -n 1)"
expect_eq "--guest-mark=0: refused" \
	"Error: --guest-mark takes the VMM's pid, not '0'." \
	"$("$HVCTL" watch -o "$D" --guest-mark=0 2>&1 | head -n 1)"
expect_eq "--guest-mark 1234 (the PID only after =): refused" \
	"Error: unexpected argument '1234'." \
	"$("$HVCTL" watch -o "$D" --guest-mark 1234 2>&1 | head -n 1)"

echo "# a stall: 10 x 3ms in the VMM within 200ms"
rm -rf "$D"
watch_start --stall 20ms/200ms
guest --slow 10:3000 >/dev/null || exit 1
wait_captures 1
watch_stop
line=$(grep ' stall vm ' /tmp/watch.out | head -n 1)
echo "  story: $line"
[[ $line =~ stall\ vm\ [0-9]+\ vcpu\ 0:\ [0-9.]+ms\ out\ of\ guest\ in\ 200ms ]] ||
	fail "stall story: '$line'"

echo "# --keep 2 of the 5 or more"
rm -rf "$D"
watch_start --exit 20ms --post 1ms --rate 10 --keep 2
guest --slow 5:30000 >/dev/null || exit 1
sleep 1
watch_stop
n=$(grep -c ' exit vm ' /tmp/watch.out)
[ "$n" -ge 3 ] || fail "$n captures written, want 3 or more: $(cat /tmp/watch.out /tmp/watch.err)"
expect_eq "captures kept" 2 "$(captures)"
expect_eq "the newest ones" \
	"$(grep ' exit vm ' /tmp/watch.out | sed 's/.* -> //' | sort | tail -n 2 | tr '\n' ' ')" \
	"$(find "$D" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort | tr '\n' ' ')"

echo "# kill -9 while captures come: every finished one is whole"
rm -rf "$D"
watch_start --exit 20ms --post 1ms --rate 100
"$HVGUEST" --slow 40:30000 >/dev/null 2>&1 &
gpid=$!
wait_captures 3
kill -9 "$WPID"
wait "$WPID" 2>/dev/null
wait "$gpid"
n=$(captures)
for c in "$D"/2*; do
	"$HVCTL" -j dump "$c" >/dev/null || fail "capture $c unreadable after kill -9"
	[ -f "$c/hvtrace/capture.json" ] || fail "capture $c lacks capture.json"
done
echo "  $n captures, each readable"
for _ in $(seq 50); do
	[ "$("$HVCTL" -j status | py "d['watch']['armed']")" = False ] && break
	sleep 0.1
done
expect_eq "the watch went with the killed process" False \
	"$("$HVCTL" -j status | py "d['watch']['armed']")"
# What a killed run leaves half-written, planted, and one not ours.
mkdir -p "$D/.tmp-20261202T000000.000Z-vm9-vcpu9/hvtrace" "$D/.tmp-notes"
watch_start --exit 20ms
expect_eq "a restart removes what the killed one left half-written" 0 \
	"$(find "$D" -maxdepth 1 -name '.tmp-2*' | wc -l)"
expect_eq "and keeps what is not a capture" yes \
	"$([ -d "$D/.tmp-notes" ] && echo yes || echo no)"
expect_eq "and keeps the finished ones" "$n" "$(captures)"
watch_stop

echo "# a full disk: captures dropped, none in parts"
mkdir -p /tmp/full
mount -t tmpfs -o size=16k tmpfs /tmp/full || fail "cannot mount a tmpfs"
D=/tmp/full/caps
watch_start --exit 20ms --post 1ms
guest --slow 2:30000 >/dev/null || exit 1
sleep 1
watch_stop
cat /tmp/watch.err
grep -q 'No space left on device' /tmp/watch.err || fail "no word of the full disk"
expect_eq "no capture, whole or in parts" "0 0" \
	"$(captures) $(find "$D" -maxdepth 1 -name '.tmp-*' | wc -l)"
umount /tmp/full
D=/tmp/caps

echo "# bad input changes nothing"
rm -rf "$D"
out=$("$HVCTL" watch --stall 50ms/20ms -o "$D" 2>&1)
expect_eq "a stall longer than its window: exit status" 2 $?
echo "  $out"
[[ $out == *50ms* && $out == *20ms* ]] || fail "the error does not name the stall: $out"
expect_eq "no DIR made" no "$([ -e "$D" ] && echo yes || echo no)"
: >/tmp/afile
out=$("$HVCTL" watch --exit 1ms -o /tmp/afile 2>&1)
[ $? -ne 0 ] || fail "a file as DIR was accepted"
echo "  $out"
expect_eq "still disarmed" False "$("$HVCTL" -j status | py "d['watch']['armed']")"
