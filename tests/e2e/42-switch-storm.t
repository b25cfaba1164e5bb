# A context-switch storm of tasks that are no vCPU threads, beside a
# guest: nothing of the storm is recorded or credited, the guest's exits
# are all there, and (the harness checks) the kernel logs no warning.
. "$(dirname "$0")/lib.sh"

reset_config
hv set-threshold 0 --preemptions
hv start
c0=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
# A number of switches, not a time: under emulation on a busy host the
# rate varies several times over. The guest runs while the storm does.
stress-ng --switch 2 --taskset 0 --switch-ops 30000 --timeout 300 --quiet &
storm=$!
sleep 1
r=$(guest --cpu 1 --cpuid 3000 --pio 500) || exit 1
kill -0 $storm 2>/dev/null || echo "  (the storm ended before the guest did)"
wait $storm || fail "stress-ng failed"
c1=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
hv stop
echo "  context switches during the test: $((c1 - c0))"
[ $((c1 - c0)) -ge 50000 ] || fail "only $((c1 - c0)) context switches: no storm"

pid=$(field pid "$r")
ev=$("$HVCTL" -j drain) || fail "drain failed"
s=$("$HVCTL" -j stat --vcpus) || fail "stat failed"
expect_eq "records of anything but the guest" 0 \
	"$(echo "$ev" | events_check count ev --where "e['vm_pid'] != $pid")"
expect_eq "CPUID exits recorded" 3000 \
	"$(echo "$ev" | events_check count exits --where "e['reason'] == 'CPUID'")"
expect_eq "IOIO exits recorded: 500 and the last one" 501 \
	"$(echo "$ev" | events_check count exits --where "e['reason'] == 'IOIO'")"
expect_eq "never re-entered: the last exit" True "$(echo "$ev" | events_check every last "$LAST_EXIT_DONE" --and count last == 1)"
expect_eq "preemptors named stress-ng" 0 \
	"$(echo "$s" | py "len([p for p in d.get('preemptors', []) if p['comm'].startswith('stress-ng')])")"
expect_eq "preemption records = preemptions seen" "$(acct preempt_seen)" \
	"$(echo "$ev" | events_check count preempts)"
parts_add_up "$ev"
check_accounting
reset_config
