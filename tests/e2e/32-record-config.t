# record's start is one request, all or nothing. While a recorder
# drains: thresholds and filters change at once (one request each, atomic
# for the probes); the buffers and clear are refused
# with a reason (they would pull the rings from under the reader, or
# discard what it has not read); the accounting stays exact throughout.
. "$(dirname "$0")/lib.sh"

reset_config
# record's options are one change, checked whole before anything is sent:
# a misspelt reason leaves the threshold before it unchanged too.
before=$("$HVCTL" -j config)
rm -rf /tmp/rc-bad
out=$("$HVCTL" record -o /tmp/rc-bad --threshold 10us --reason nfp 2>&1) &&
	fail "record with a misspelt reason accepted"
grep -q "unknown exit reason 'nfp'" <<<"$out" || fail "bad reason: $out"
[ "$("$HVCTL" -j config)" = "$before" ] || fail "a rejected record changed the config"
[ ! -e /tmp/rc-bad ] || fail "a rejected record created its trace"
echo "  record --threshold 10us --reason nfp rejected whole: $out"
"$HVCTL" record -q -o /tmp/rc --threshold 0 --duration 120s &
rec=$!
wait_recording
"$HVGUEST" --forever --pio 200 --cpuid 200 >/tmp/rc-guest.out 2>&1 &
g=$!
sleep 2
for i in 1 2 3 4 5; do
	hv set-threshold "${i}us"
	hv filter reason io
	hv filter clear
	hv set-threshold 2us --reason cpuid
	hv set-threshold 0 --clear-reasons
done
echo "  thresholds and filters changed 25 times while draining"
before=$("$HVCTL" -j config)
out=$("$HVCTL" buffer --size 64 2>&1) && fail "buffer change accepted while recording"
grep -q "stop recording and reading" <<<"$out" || fail "buffer refusal: $out"
out=$("$HVCTL" clear 2>&1) && fail "clear accepted while a recorder owns the buffers"
grep -q "owns the buffers" <<<"$out" || fail "clear refusal: $out"
[ "$("$HVCTL" -j config)" = "$before" ] || fail "a refused request changed the config"
echo "  buffer change and clear refused: $out"
kill -INT $g
wait $g || fail "guest: $(cat /tmp/rc-guest.out)"
kill -INT $rec
wait $rec || fail "record failed"
check_accounting
expect_eq "drained = recorded" "$(acct recorded)" "$(acct drained)"
expect_eq "events in the trace = drained" "$(acct drained)" \
	"$("$HVCTL" dump /tmp/rc | wc -l)"
# The reader is gone: clear works again.
hv clear
reset_config
