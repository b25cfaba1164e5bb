# Nothing lost: a tiny ring's losses are in the packets and match the
# module; SIGINT and kill -9 leave readable traces; a full disk gives a
# clear error and a valid partial trace; a second reader is refused.
. "$(dirname "$0")/lib.sh"

# Losses: 4 KiB rings (32 records) cannot keep up with a CPUID storm.
reset_config
"$HVCTL" record -q -o /tmp/lossy --buffer-size 4 --threshold 0 --duration 60s &
rec=$!
wait_recording
guest --cpu 1 --cpuid 3000 >/dev/null || exit 1
kill -INT $rec
wait $rec || fail "record failed"
lost=$(acct lost)
[ "$lost" -gt 0 ] || fail "no loss with a 4 KiB ring: test proves nothing"
expect_eq "events in trace = drained" "$(acct drained)" "$("$HVCTL" dump /tmp/lossy | wc -l)"
expect_eq "recorded = trace + 0 in the ring" "$(acct recorded)" "$(acct drained)"
expect_eq "discarded in packets = module's lost" "$lost" \
	"$("$HVCTL" -j report /tmp/lossy | py "d['loss']['events_discarded']")"
babeltrace2 /tmp/lossy >/dev/null 2>/tmp/bt.err || fail "babeltrace2: $(tail -3 /tmp/bt.err)"
check_accounting

# SIGINT mid-run: what was drained is there, the trace is valid.
reset_config
"$HVCTL" record -q -o /tmp/int --threshold 0 &
rec=$!
wait_recording
"$HVGUEST" --forever --pio 100 >/dev/null &
g=$!
sleep 3
kill -INT $rec
wait $rec || fail "record exited $? on SIGINT"
kill -INT $g; wait $g
n=$(babeltrace2 /tmp/int | wc -l) || fail "babeltrace2 failed after SIGINT"
[ "$n" -gt 0 ] || fail "no events after SIGINT"
expect_eq "SIGINT: dump = babeltrace2" "$n" "$("$HVCTL" dump /tmp/int | wc -l)"

# kill -9: readable up to the last complete packet.
reset_config
"$HVCTL" record -q -o /tmp/k9 --threshold 0 &
rec=$!
wait_recording
"$HVGUEST" --forever --pio 100 >/dev/null &
g=$!
sleep 4
kill -9 $rec
wait $rec 2>/dev/null
kill -INT $g; wait $g
hv stop
n=$(babeltrace2 /tmp/k9 | wc -l) || fail "babeltrace2 failed after kill -9"
[ "$n" -gt 0 ] || fail "no events after kill -9"
expect_eq "kill -9: dump = babeltrace2" "$n" "$("$HVCTL" dump /tmp/k9 | wc -l)"
echo "  kill -9: $n events readable"

# A full filesystem: a clear error naming the path, a valid partial trace.
reset_config
mkdir -p /tmp/small && mount -t tmpfs -o size=256k tmpfs /tmp/small
"$HVCTL" record -q -o /tmp/small/t --threshold 0 --duration 60s 2>/tmp/full.err &
rec=$!
wait_recording
"$HVGUEST" --forever --pio 200 >/dev/null &
g=$!
wait $rec
rc=$?
kill -INT $g; wait $g
[ $rc -ne 0 ] || fail "record succeeded on a full disk"
grep -q "/tmp/small/t.*No space left" /tmp/full.err || fail "unclear error: $(cat /tmp/full.err)"
echo "  full disk: $(head -n 1 /tmp/full.err)"
babeltrace2 /tmp/small/t >/dev/null || fail "partial trace unreadable"
hv status >/dev/null
umount /tmp/small

# A second reader is refused while the first drains.
reset_config
"$HVCTL" record -q -o /tmp/first --duration 20s &
rec=$!
wait_recording
out=$("$HVCTL" record -q -o /tmp/second --duration 2s 2>&1)
[ $? -ne 0 ] || fail "second recorder accepted"
grep -q "another reader" <<<"$out" || fail "second recorder: '$out'"
echo "  second reader: $out"
kill -INT $rec
wait $rec
reset_config
