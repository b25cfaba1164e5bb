# A tiny ring: discard mode drops new events and counts them exactly;
# overwrite mode keeps the newest and counts what it overwrote.
. "$(dirname "$0")/lib.sh"

reset_config
hv buffer --size 4	# 4 KiB: 16 records per CPU
hv start
guest --cpu 1 --cpuid 500 >/dev/null || exit 1
hv stop
check_accounting
rec=$(acct recorded)
lost=$(acct lost)
seen=$(acct seen)
n=$("$HVCTL" -j drain | events_check count ev)
expect_eq "drained = recorded" "$rec" "$n"
[ "$rec" -le 32 ] || fail "recorded $rec > two rings of 16"
expect_eq "recorded + lost = seen" "$seen" $((rec + lost))
[ "$lost" -ge 400 ] || fail "lost $lost, expected most of 500"

reset_config
hv buffer --size 4 --mode overwrite
hv start
guest --cpu 1 --cpuid 500 >/dev/null || exit 1
hv stop
check_accounting
rec=$(acct recorded)
ev=$("$HVCTL" -j drain)
n=$(echo "$ev" | events_check count ev)
over=$(acct overwritten)
expect_eq "overwrite: lost" 0 "$(acct lost)"
expect_eq "overwrite: drained + overwritten = recorded" "$rec" $((n + over))
# The newest survive: sequence numbers are contiguous up to the last.
expect_eq "overwrite: newest kept, in order" True "$(echo "$ev" | events_check every ev "e['seq'] == prev['seq'] + 1" --where "prev and prev['cpu'] == e['cpu']")"

# The buffers cannot change while recording.
hv start
"$HVCTL" buffer --size 8 2>/tmp/err && fail "resize while recording accepted"
grep -q "stop recording" /tmp/err || fail "unclear error: $(cat /tmp/err)"
echo "  resize while recording: $(cat /tmp/err)"

# Nor while records wait to be drained: the change would lose them. Once
# drained it goes through, and the counts go on across it.
guest --cpu 1 --cpuid 20 >/dev/null || exit 1
hv stop
rec=$(acct recorded)
[ "$rec" -gt 0 ] || fail "nothing recorded"
"$HVCTL" buffer --size 8 2>/tmp/err && fail "resize with records waiting accepted"
grep -q "records are still in the buffers: drain or clear them first" /tmp/err ||
	fail "unclear error: $(cat /tmp/err)"
echo "  resize with records waiting: $(cat /tmp/err)"
expect_eq "buffer size unchanged" 4 "$("$HVCTL" -j config | py 'd["buffer_kb"]')"
"$HVCTL" -j drain >/dev/null || fail "drain"
expect_eq "drained + overwritten = recorded" "$rec" \
	$(( $(acct drained) + $(acct overwritten) ))
hv buffer --size 8
expect_eq "after the change: drained + overwritten = recorded" "$rec" \
	$(( $(acct drained) + $(acct overwritten) ))
check_accounting
reset_config
