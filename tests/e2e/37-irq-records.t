# Late interrupt records (hvctl set-threshold DURATION --interrupts),
# against the kernel's own tracing: hvguest's vCPU 0 takes LAPIC timer
# interrupts every 10 ms (as e2e 36) beside a SCHED_FIFO hog on its CPU
# in 150 ms bursts, while hvctl record drains. A timer that expires in a
# burst waits for its end: delivered 50 ms late or more, it must be in
# the trace, once, exactly as ftrace saw it (its expiry, or where hvtrace
# cannot probe it, KVM's raise, to its injection: tests/e2e/irq_records.py),
# its time split with the hog as the preemptor; none below the
# threshold. The accounting adds up, the trace reads in babeltrace2, the
# report names the hog under "late interrupts", and Perfetto draws an
# arrow from each raise to its injection. Off again: nothing recorded.
. "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || fail "needs two CPUs, has $(nproc)"
reset_config
mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" ||
	fail "cannot mount tracefs"
VEC=239		# hvguest's TIMER_VECTOR, 0xef
THR=50000000
inj=$TRACEFS/events/kvm/kvm_inj_virq
trap 'echo 0 >"$TRACEFS/tracing_on"; echo >"$TRACEFS/set_event"' EXIT

st=$("$HVCTL" -j status) || fail "status failed"
case $(echo "$st" | py "d.get('irq_timer_expiry')") in
True)	source=timer start=timer ;;
False)	source=local start=local ;;
*)	fail "hvctl status has no irq_timer_expiry: $st" ;;
esac
slack=1000000
[ "$(echo "$st" | py "d['clock']")" = tsc ] || slack=4000000

expect_eq "the default: no late interrupt recorded" off \
	"$("$HVCTL" -j config | py "'off' if d['irq_threshold_ns'] is None else d['irq_threshold_ns']")"
hv set-threshold 3600s
hv set-threshold 50ms --interrupts
expect_eq "config: the interrupt threshold" $THR \
	"$("$HVCTL" -j config | py "d['irq_threshold_ns']")"

# ftrace: the timer's injections and expiries (or raises), timestamps in
# microseconds of local_clock().
echo 0 >"$TRACEFS/tracing_on"
echo >"$TRACEFS/trace"
echo local >"$TRACEFS/trace_clock"
echo "soft == 0 && vector == $VEC" >"$inj/filter" ||
	fail "cannot filter kvm_inj_virq"
echo 1 >"$inj/enable"
if [ $start = timer ]; then
	echo 1 >"$TRACEFS/events/timer/hrtimer_expire_entry/enable"
else
	echo "vec == $VEC" >"$TRACEFS/events/kvm/kvm_apic_accept_irq/filter"
	echo 1 >"$TRACEFS/events/kvm/kvm_apic_accept_irq/enable"
fi
echo 1 >"$TRACEFS/tracing_on"

t=/tmp/rec-irq
rm -rf $t
"$HVCTL" record -q -o $t --duration 60s &
rec=$!
wait_recording
r=$(guest_beside_hog irqrec --cpu 1 --timer 100:10000 --seconds 3) ||
	exit 1
echo "  $r"
kill -INT $rec
wait $rec || fail "record exited $?"
echo 0 >"$TRACEFS/tracing_on"
cp "$TRACEFS/trace" /tmp/rec-irq.ftrace
echo 0 >"$inj/enable"
echo 0 >"$inj/filter"
echo >"$TRACEFS/set_event"
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' /tmp/rec-irq.ftrace ||
	fail "ftrace lost events: $(grep entries-in-buffer /tmp/rec-irq.ftrace)"

pid=$(field pid "$r") tid=$(field tids "$r")
"$HVCTL" dump $t --format json >/tmp/rec-irq.json || fail "dump failed"
n=$(events_check count ev --where "e['type'] == 'irq'" </tmp/rec-irq.json)
"$PYTHON" "$HVT_ROOT/tests/e2e/irq_records.py" /tmp/rec-irq.ftrace \
	/tmp/rec-irq.json $THR $slack $start $VEC "${tid%%,*}" ||
	fail "the late interrupts are not ftrace's"
[ "$n" -ge 1 ] || fail "no late interrupt recorded: the hog's bursts make some"
echo "  $n late interrupt records"

# Each record: the raise's source, vCPU 0 of the guest, its time split
# adding up; a wait of 100 ms or more is mostly runnable, the hog's.
hog=$(sed -n 's/^HVHOG pid=[0-9]* tid=\([0-9]*\) comm=\([^ ]*\) .*/\1 \2/p' /tmp/irqrec-hog.out | head -n 1)
irq="e['type'] == 'irq'"
expect_eq "records: source, VM, vCPU" True "$(events_check every ev \
	"e['source'] == '$source' and e['vm_pid'] == $pid and e['vcpu'] == 0" \
	--where "$irq" </tmp/rec-irq.json)"
expect_eq "records: guest, parts and handling add up to the duration" True \
	"$(events_check every ev "e['guest_ns'] + e['vmm_ns'] + e['halt_ns'] + e['runnable_ns'] + e['other_ns'] + e['handling_ns'] == e['duration_ns']" \
	--where "$irq" </tmp/rec-irq.json)"
if [ $source = timer ]; then
	long="$irq and e['duration_ns'] >= 100000000"
	[ "$(events_check count ev --where "$long" </tmp/rec-irq.json)" -ge 1 ] ||
		fail "no record of 100 ms or more: the hog's bursts are 150 ms"
	expect_eq "records of 100 ms or more: mostly runnable, the hog ran (tid comm)" True \
		"$(events_check every ev "e['runnable_ns'] * 2 >= e['duration_ns'] and '%d %s' % (e['preempt_pid'], e['preempt_comm']) == '$hog'" \
		--where "$long" </tmp/rec-irq.json)"
fi

# The module agrees: each decision counted once, all recorded drained.
expect_eq "module: late interrupts recorded, lost" "$n 0" \
	"$(acct irq_recorded) $(acct irq_lost)"
check_accounting

# babeltrace2 reads them; the report and Perfetto show them.
bt=$(babeltrace2 $t) || fail "babeltrace2 failed on the trace"
expect_eq "babeltrace2: late interrupts" $n "$(grep -cE 'vcpu_irq(_svm|_vmx)?:' <<<"$bt")"
rep=$("$HVCTL" report $t) || fail "report failed"
grep -A12 -i '^late interrupts' <<<"$rep"
[ $source != timer ] || grep -A30 -i '^late interrupts' <<<"$rep" |
	grep -q "${hog#* }" || fail "report: the late interrupts do not name the hog ${hog#* }"
expect_eq "report JSON: late interrupts" $n \
	"$("$HVCTL" -j report $t | py "d['late_interrupts']['count']")"
"$HVCTL" export $t --perfetto /tmp/rec-irq.pf.json || fail "export failed"
# A flow: bind_id on the late interrupt's slice (flow_out) and on its
# injection's on the vCPU's track (flow_in).
expect_eq "perfetto: an arrow from each raise to its injection, paired" "$n $n True" \
	"$(py "(lambda o, i: '%d %d %s' % (len(o), len(i), sorted(o) == sorted(i)))([e['bind_id'] for e in d['traceEvents'] if e.get('flow_out')], [e['bind_id'] for e in d['traceEvents'] if e.get('flow_in')])" </tmp/rec-irq.pf.json)"

# Off: decided, nothing recorded.
hv set-threshold off --interrupts
hv clear
hv start
guest --cpu 1 --timer 20:10000 >/dev/null || exit 1
hv stop
expect_eq "off: none recorded, all below" "0 $(acct irq_seen)" \
	"$(acct irq_recorded) $(acct irq_below_threshold)"
[ "$(acct irq_seen)" -ge 20 ] || fail "off: $(acct irq_seen) decisions, want the 20 timers at least"
check_accounting
reset_config
