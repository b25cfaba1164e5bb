# The watch in the module, read through a plain netlink socket
# (watch_nl.py, not hvctl): histories hold exactly the records before a
# trigger, each trigger kind fires where it must and not where it must
# not, the rate limits and the suppressed counts add up against the
# kernel's own recording, and the watch goes with its socket and with the
# module.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch_lib.sh"

echo "# known sequence: 40 fast exits, one slow one, for 1s; history 16, two vCPUs"
# The kernel's own trace of kvm_exit is the ground truth for which exits
# came last before the slow one (host interrupts add exits of their own).
mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" ||
	fail "cannot mount tracefs"
echo 0 >"$TRACEFS/tracing_on"
: >"$TRACEFS/trace"
echo 1 >"$TRACEFS/events/kvm/kvm_exit/enable"
echo 1 >"$TRACEFS/tracing_on"
# Two seconds on the debug kernel: a fresh VM's first guest there ran
# one round in the first (the slow exits are its rounds).
secs=1
[ "$HVT_KERNEL_KIND" = debug ] && secs=2
watch exit_ns=20000000 history=16 post_ns=5000000 rate=100 -- \
	--vcpus 2 --pio 40 --slow 1:30000 --seconds $secs
echo 0 >"$TRACEFS/tracing_on"
echo 0 >"$TRACEFS/events/kvm/kvm_exit/enable"
# "vcpu ID rip INFO1 INFO2 INTR_INFO ERROR_CODE" of each exit, in order:
# what svm_get_exit_info gave the kernel's event (hvtrace reads the VMCB).
x='\(0x[0-9a-f]*\)'
sed -n "s/.*kvm_exit: vcpu \([0-9]*\) reason .* rip $x info1 $x info2 $x intr_info $x error_code $x.*/\1 \2 \3 \4 \5 \6/p" \
	"$TRACEFS/trace" >/tmp/ftrace-exits
: >"$TRACEFS/trace"
[ -s /tmp/ftrace-exits ] || fail "no kvm_exit in the kernel's trace"
rip_pio=$(field rip_pio "$GUEST_LINE")
rip_slow=$(field rip_slow "$GUEST_LINE")
gpid=$(field pid "$GUEST_LINE")
# The slow exits of each vCPU trigger; so may the first exits (the VMM
# sets up) and the last exit, whose time runs to the VM's
# destruction. The slow ones are the captures to check. A history begins
# at the vCPU's first exit and goes on across captures, but a capture does
# not reach back past its vCPU's previous trigger (those records are the
# previous capture's): it holds the last 16 records, or all since then.
slow="[c for c in caps if [$PORT for r in c['records'] if r['seq'] == c['header']['trigger_seq']] == [0x81]]"
echo "  rounds $(field iterations "$GUEST_LINE"); slow exits' captures of vCPU 0, 1: $(cap "[len([c for c in $slow if c['header']['vcpu_id'] == i]) for i in (0, 1)]"); suppressed busy, rate: $(cap "[st['suppressed_busy'], st['suppressed_rate']]")"
expect_eq "captures of a slow exit, two or more per vCPU" True \
	"$(cap "all(len([c for c in $slow if c['header']['vcpu_id'] == i]) >= 2 for i in (0, 1))")"
prev="max([0] + [x['header']['trigger_seq'] for x in caps if x['header']['vcpu_id'] == c['header']['vcpu_id'] and x['header']['id'] < c['header']['id']])"
expect_eq "each: 16 records before the trigger's, or all since the last" True \
	"$(cap "all(c['header']['trigger_seq'] - c['header']['first_seq'] == min(16, c['header']['trigger_seq'] - $prev - 1) for c in $slow)")"
expect_eq "some with all 16" True \
	"$(cap "len([c for c in $slow if c['header']['trigger_seq'] - c['header']['first_seq'] == 16]) >= 2")"
# Exits in a history (preemption records take places too) are a run of
# the kernel's exits of that vCPU, rip and vendor information alike: none
# missing, none added, in order.
ftrace="[l.split() for l in open('/tmp/ftrace-exits')]"
expect_eq "those are a run of the kernel's exits of the vCPU" True \
	"$(cap "all((lambda mine, k: any(k[i:i + len(mine)] == mine for i in range(len(k))))([(r['rip'], r['info1'], r['info2'], r['intr_info'], r['error_code']) for r in c['records'] if r['type'] == 1], [tuple(int(f, 16) for f in l[1:6]) for l in $ftrace if int(l[0]) == c['header']['vcpu_id']]) for c in caps)")"
# (Host interrupts and preemptions take places too: most of them on the
# debug kernel, at times.)
expect_eq "the fast exits are among them: IOIO to 0x80 from rip_pio" True \
	"$(cap "all(any(r['type'] == 1 and r['reason'] == 0x7b and $PORT == 0x80 and r['rip'] == $rip_pio and r['seq'] < c['header']['trigger_seq'] for r in c['records']) for c in $slow if c['header']['trigger_seq'] - c['header']['first_seq'] == 16)")"
expect_eq "in order, none missing" True \
	"$(cap "all([r['seq'] for r in c['records']] == list(range(c['header']['first_seq'], c['header']['end_seq'])) for c in caps)")"
# The VMM's 30 ms sleep is VMM time from the switch-out to the wake-up,
# each timed on its own CPU (the timer may fire on another). The debug
# VM's local_clock() of two CPUs can differ by up to two ticks (each
# within a tick of the shared time: 4 ms at HZ=250; a cold make check
# saw a trigger fall short there once): what the VMM part
# misses goes to the runnable part after the wake-up, so the two hold
# the sleep together. The stock kernels' clocks agree: exact there.
trig="[r for c in $slow for r in c['records'] if r['seq'] == c['header']['trigger_seq']]"
echo "  triggers (duration, vmm, runnable; us): $(cap "[(r['duration_ns'] // 1000, r['vmm_ns'] // 1000, r['runnable_ns'] // 1000) for r in $trig]")"
vmm_min=30000000
[ "$HVT_KERNEL_KIND" = debug ] && vmm_min=22000000
expect_eq "the trigger: the slow exit, >= 30ms, in the VMM" True \
	"$(cap "all(r['rip'] == $rip_slow and r['duration_ns'] >= 30000000 and r['vmm_ns'] >= $vmm_min and r['vmm_ns'] + r['runnable_ns'] >= 30000000 and r['duration_ns'] == c['header']['value_ns'] for c in $slow for r in c['records'] if r['seq'] == c['header']['trigger_seq'])")"
expect_eq "header: both clocks read at the copy, after the trigger" True \
	"$(cap "all(h['trigger_ts'] < h['clock_ns'] and abs(h['realtime_ns'] - h['clock_ns'] - ($(date +%s%N) - $(cut -d' ' -f1 /proc/uptime | tr -d .)0000000)) < 5 * 10**9 for c in caps for h in [c['header']])")"
expect_eq "header: limit, kind, VMM, vCPU thread" True \
	"$(cap "all(h['limit_ns'] == 20000000 and h['trigger'] == 'exit' and h['vm_pid'] == $gpid and h['tid'] == r['tid'] for c in caps for h in [c['header']] for r in c['records'])")"
expect_eq "nothing from another vCPU" True \
	"$(cap "all(r['vcpu_id'] == c['header']['vcpu_id'] for c in caps for r in c['records'])")"
expect_eq "post window: records after the trigger end within 5ms of it" True \
	"$(cap "all(r['ts_ns'] + r['duration_ns'] <= c['header']['trigger_ts'] + 5000000 for c in caps for r in c['records'] if r['seq'] > c['header']['trigger_seq'])")"
expect_eq "all read, none pending or dropped" "0 0" "$(cap "'%d %d' % (st['pending'], st['dropped'])")"

echo "# stall window: 10 x 3ms in the VMM within 50ms crosses 20ms"
# First a 100ms halt (idle: not out of the guest for the window) puts the
# VM's set-up exits out of the window.
watch stall_ns=20000000 stall_window_ns=50000000 -- --halt 1:100000 \
	--slow 10:3000
stall="[c for c in caps if c['header']['trigger'] == 'stall' and [$PORT for r in c['records'] if r['seq'] == c['header']['trigger_seq']] == [0x81]]"
expect_eq "a stall capture on a slow exit" True "$(cap "len($stall) >= 1")"
# A stall counts once: each capture starts the window afresh. The window
# starts in the halt's exit, which it cuts to nothing: each value is the
# time of the exits after it up to the trigger (halted time taken out),
# but for one the window's start cuts (a host stall of the emulator
# under load stretches the guest's time between exits).
all="sorted([c for c in caps if c['header']['trigger'] == 'stall'], key=lambda c: c['header']['id'])"
# (A stall suppressed restarts the window too: so the value is the time
# of a run of exits ending with the trigger's.)
pairs="zip([0] + [x['header']['trigger_seq'] for x in $all], $all)"
since="sum(r['duration_ns'] - r['halt_ns'] for r in c['records'] if r['type'] == 1 and prev < r['seq'] <= c['header']['trigger_seq'])"
expect_eq "each value: at least 20ms, never more than the exits' time since the previous stall" True \
	"$(cap "all(c['header']['first_seq'] <= prev + 1 and 20000000 <= c['header']['value_ns'] <= $since and c['header']['window_ns'] == 50000000 for prev, c in $pairs)")"
# Exactly: the window's rule replayed over the records' exits (their
# start and length are what the kernel added), and within what surely
# lay in the window (the cut exit's time at its start), at most
# window/128 short (spans closer than that merge).
expect_eq "each value: the window's rule over the exits since the last stall" "[]" \
	"$(watch_vals "stall_breaks(d['captures'], 50000000, False)")"
expect_eq "each fired at the first exit that crossed" True \
	"$(cap "all(c['header']['value_ns'] - r['duration_ns'] < 20000000 for c in $all for r in c['records'] if r['seq'] == c['header']['trigger_seq'])")"

echo "# the same storm below: 3 x 3ms (each took 3.3 to 4.7ms under emulation)"
watch stall_ns=20000000 stall_window_ns=50000000 -- --halt 1:100000 \
	--slow 3:3000
echo "  stall captures on a slow exit (value, the slow exits' time in it; us): $(cap "[(c['header']['value_ns'] // 1000, sum(r['duration_ns'] - r['halt_ns'] for r in c['records'] if r['type'] == 1 and $PORT == 0x81 and r['seq'] <= c['header']['trigger_seq']) // 1000) for c in $stall]")"
# On the debug kernel beside another VM (make check) the other exits of
# the window (set-up, the host's interrupts) can take the 11 ms the
# slow ones leave (CI, December 2026: one capture): there each must be
# the window's rule over its exits, so 20 ms truly lay in the window.
if [ "$HVT_KERNEL_KIND" = debug ]; then
	expect_eq "stall captures on a slow exit: 20ms there by the window's rule" "[]" \
		"$(watch_vals "stall_breaks([c for c in d['captures'] if c['header']['trigger'] == 'stall'], 50000000, False, need=False)")"
else
	expect_eq "no stall capture on a slow exit" 0 "$(cap "len($stall)")"
fi

echo "# halts are idle, not stalls: 10 x 5ms halted"
# The halts' exits last their halt; out of the guest by the clock, but
# the vCPU had nothing to do.
watch stall_ns=20000000 stall_window_ns=100000000 -- --halt 10:5000
rip_halt=$(field rip_halt "$GUEST_LINE")
# (Set-up and the halts' I/O exits may still make one, under emulation.)
# The window's start may cut an exit (a halt's exit is long: 6.1 did),
# which then counts in part, never more than its time outside a halt.
expect_eq "stall captures: the window's rule without the halts' time" "[]" \
	"$(watch_vals "stall_breaks(d['captures'], 100000000, False, need=False)")"
# A halt's exit may still be the one that crosses, by its time outside the
# halt (waking up, runnable: the debug kernel is slow); never by its halt.
expect_eq "a capture on a halt's exit: crossed by its time outside the halt" "[]" \
	"$(cap "[c['header'] for c in caps for r in c['records'] if r['seq'] == c['header']['trigger_seq'] and r['halt_ns'] and c['header']['value_ns'] - (r['duration_ns'] - r['halt_ns']) >= 20000000]")"
echo "# ... unless halt time is asked to count"
watch stall_ns=20000000 stall_window_ns=100000000 halt_triggers=1 -- \
	--halt 10:5000
# The halts' time counted: a value the rule without it cannot make.
expect_eq "each value: the window's rule, halts counted" "[]" \
	"$(watch_vals "stall_breaks(d['captures'], 100000000, True)")"
# That some capture needed the halts' time to cross is what shows they
# count. On the debug kernel beside another VM the halts' exits alone
# (slow to wake, runnable) may cross first, and a busy capture leaves
# the next one unjudged (make check saw none there once): shown there,
# asserted on the others.
counted=$(watch_vals "halts_counted(d['captures'], 100000000)")
if [ "$HVT_KERNEL_KIND" = debug ]; then
	echo "  a stall capture crossed by the halts' time (debug: shown only) = $counted"
else
	expect_eq "a stall capture crossed by the halts' time" True "$counted"
fi

echo "# an exit's part: the slow exits' 30ms are the VMM's, not runnable"
trig="[(c, r) for c in caps for r in c['records'] if r['seq'] == c['header']['trigger_seq'] and r['type'] == 1]"
watch exit_ns=15000000 exit_on=2 rate=100 post_ns=1000000 -- --slow 3:30000
# (A capture still being copied makes the next trigger "busy": counted.)
expect_eq "on vmm: the slow exits trigger, by their VMM part" True \
	"$(cap "(lambda n: n >= 1 and n + st['suppressed_busy'] >= 3)(len([r for c, r in $trig if $PORT == 0x81]))")"
expect_eq "on vmm: each value its trigger's VMM part, at least 15ms" "[]" \
	"$(cap "[c['header'] for c, r in $trig if c['header']['value_ns'] != r['vmm_ns'] or r['vmm_ns'] < 15000000]")"
watch exit_ns=15000000 exit_on=4 rate=100 post_ns=1000000 -- --slow 3:30000
expect_eq "on runnable: each value its trigger's runnable part, at least 15ms" "[]" \
	"$(cap "[c['header'] for c, r in $trig if c['header']['value_ns'] != r['runnable_ns'] or r['runnable_ns'] < 15000000]")"
echo "# ... and a FIFO hog on the spinning vCPU's CPU for 40ms makes one"
# Where the hog's wake-up finds the vCPU thread is not the test's to
# choose: in an exit (its runnable part) or in KVM between exits (a
# preemption, no exit's part; make check saw it once on 6.1). Up to three
# hogs, each miss shown.
for try in 1 2 3; do
	watch_bg exit_ns=15000000 exit_on=4 rate=100
	hog_spin 40 1000
	watch_end
	hogged=$(cap "any(r['preempt_pid'] == $HOG_PID and r['runnable_ns'] >= 15000000 and c['header']['value_ns'] == r['runnable_ns'] for c, r in $trig)")
	[ "$hogged" = True ] && break
	echo "  hog $try preempted no exit 15ms; the triggers (value, runnable, preemptor): $(cap "[(c['header']['value_ns'], r['runnable_ns'], r['preempt_pid']) for c, r in $trig]")"
done
expect_eq "on runnable: an exit the hog preempted, its value the runnable part" True "$hogged"

echo "# an exit's total leaves its halt out, unless asked: 10 x 20ms halted"
# (15ms: more than a halt's exit spends awake, even on the debug kernel.)
watch exit_ns=15000000 rate=100 -- --halt 10:20000
expect_eq "each value: its trigger's time outside a halt, at least 15ms" "[]" \
	"$(cap "[c['header'] for c, r in $trig if c['header']['value_ns'] != r['duration_ns'] - r['halt_ns'] or c['header']['value_ns'] < 15000000]")"
watch exit_ns=15000000 halt_triggers=1 rate=100 -- --halt 10:20000
expect_eq "with halt: each value its trigger's whole time" "[]" \
	"$(cap "[c['header'] for c, r in $trig if c['header']['value_ns'] != r['duration_ns'] or r['duration_ns'] < 15000000]")"
expect_eq "with halt: a halt's exit made a capture its halt crossed" True \
	"$(cap "any(r['halt_ns'] and r['duration_ns'] - r['halt_ns'] < 15000000 for c, r in $trig)")"

echo "# a quiet guest: it spins 3s, its vCPU alone on CPU 0"
# (Under emulation a storm of fast exits is a stall: each costs ~20us,
# the guest's code between them far less.)
cpus=$(taskset -pc $$ | sed 's/.*: //')
[ "$(nproc)" -ge 2 ] && taskset -pc 1 $$ >/dev/null
watch stall_ns=20000000 stall_window_ns=50000000 exit_ns=10000000 -- \
	--cpu 0 --spin 3000
taskset -pc "$cpus" $$ >/dev/null
# Two exits are slow by design: the spin's start (port 0x3f3: the VMM
# tells the world) and the last one (0x3f0), which runs to destruction.
# On the debug kernel the host's own interrupt handling can hold a vCPU
# 10ms and more (an INTR exit, 16ms seen): the host's doing, not the
# guest's.
own="[0x3f0], [0x3f3]"
intr="False"
[ "$HVT_KERNEL_KIND" = debug ] && intr="r['reason'] == {1: 1, 2: 0x60}[r['isa']]"
expect_eq "captures but of the VMM's own slow exits" "[]" \
	"$(cap "[(c['header'], r) for c in caps for r in c['records'] if r['seq'] == c['header']['trigger_seq'] and not ([$PORT] in ($own) or $intr)]")"
expect_eq "nothing suppressed" "0 0" \
	"$(cap "'%d %d' % (st['suppressed_rate'], st['suppressed_total'])")"

echo "# rate limits: 12 slow exits, 2 captures a minute per vCPU"
# Every exit at or above 25ms is a trigger: the module's own recording
# with the same threshold counts them, and each one is a capture or
# counted as suppressed.
reset_config
hv set-threshold 25ms
hv clear
hv start
watch exit_ns=25000000 post_ns=1000000 rate=2 -- --slow 12:30000
hv stop
recorded=$("$HVCTL" -j drain | events_check count ev)
expect_eq "triggers = exits >= 25ms, as recorded" "$recorded" \
	"$(cap "len(caps) + st['suppressed_busy'] + st['suppressed_rate'] + st['suppressed_total']")"
expect_eq "captures in each minute of the clock, at most 2" True \
	"$(cap "all(n <= 2 for n in __import__('collections').Counter(c['header']['trigger_ts'] // 60000000000 for c in caps).values())")"
expect_eq "2 captures in each minute there were triggers in" True \
	"$(cap "2 <= len(caps) <= 2 * len(set(c['header']['trigger_ts'] // 60000000000 for c in caps)) and st['suppressed_rate'] > 0")"
expect_eq "per capture: the triggers suppressed since the vCPU's last" True \
	"$(cap "sum(c['header']['suppressed'] for c in caps) <= st['suppressed_busy'] + st['suppressed_rate'] + st['suppressed_total']")"
reset_config

echo "# the total rate: 2 vCPUs, 1 capture a minute in all"
watch exit_ns=25000000 post_ns=1000000 rate=5 rate_total=1 -- \
	--vcpus 2 --slow 3:30000
expect_eq "captures in each minute, at most 1" True \
	"$(cap "all(n <= 1 for n in __import__('collections').Counter(c['header']['trigger_ts'] // 60000000000 for c in caps).values())")"
expect_eq "triggers: 3 slow exits a vCPU, and perhaps the last exits" True \
	"$(cap "len(caps) + st['suppressed_busy'] + st['suppressed_rate'] + st['suppressed_total'] >= 6 and st['suppressed_total'] > 0 and len(caps) >= 1")"

echo "# filters: vCPU 1 only"
watch exit_ns=20000000 filter_vcpus=1 -- --vcpus 2 --slow 1:30000
expect_eq "captures of vCPU 1 only" True \
	"$(cap "len(caps) >= 1 and all(c['header']['vcpu_id'] == 1 for c in caps)")"

echo "# preemption: a FIFO hog takes the spinning vCPU's CPU for 40ms"
watch_bg preempt_ns=30000000
hog_spin 40 1000
watch_end
pre="[c for c in caps if c['header']['trigger'] == 'preempted']"
expect_eq "one preemption capture" 1 "$(cap "len($pre)")"
expect_eq "its trigger record names the hog" "$HOG_PID hvhog" \
	"$(cap "' '.join('%d %s' % (r['preempt_pid'], r['preempt_comm']) for c in $pre for r in c['records'] if r['seq'] == c['header']['trigger_seq'] and r['type'] == 2)")"
expect_eq "off CPU at least the hog's 40ms, the value" True \
	"$(cap "all(r['duration_ns'] >= 40000000 and r['duration_ns'] == c['header']['value_ns'] for c in $pre for r in c['records'] if r['seq'] == c['header']['trigger_seq'])")"

echo "# refused settings change nothing"
expect_eq "no trigger" "refused EINVAL: no trigger: give an exit, stall, preemption or interrupt limit or guest marks" \
	"$("$PYTHON" "$W" arm-only history=8)"
expect_eq "stall longer than its window" "refused EINVAL: a stall's time out of the guest is longer than its window" \
	"$("$PYTHON" "$W" arm-only stall_ns=50000000 stall_window_ns=20000000)"
r=$("$PYTHON" "$W" arm-only exit_ns=1000 history=65536)
case "$r" in
"refused ENOMEM: hvtrace: history 65536 x max_vcpus "*" MiB free") echo "  $r" ;;
*) fail "a history too large for memory: $r" ;;
esac
expect_eq "history out of range" "refused ERANGE: integer out of range" \
	"$("$PYTHON" "$W" arm-only exit_ns=1000 history=65537)"
expect_eq "still disarmed" 0 "$("$PYTHON" "$W" status | py "d['armed']")"

echo "# the watch belongs to its socket"
expect_eq "armed by a socket that then closed" armed \
	"$("$PYTHON" "$W" arm-only exit_ns=1000000)"
for _ in $(seq 50); do
	[ "$("$PYTHON" "$W" status | py "d['armed']")" = 0 ] && break
	sleep 0.1
done
expect_eq "disarmed with it" 0 "$("$PYTHON" "$W" status | py "d['armed']")"
watch_bg exit_ns=1000000
expect_eq "another socket is refused" \
	"refused EBUSY: hvtrace: another socket's watch is armed (an hvctl watch?)" \
	"$("$PYTHON" "$W" arm-only exit_ns=1000000)"

echo "# histories for live vCPUs only; unloading with the watch armed"
"$HVGUEST" --vcpus 3 --seconds 30 --pio 1 >/tmp/watch-guest.out 2>&1 &
gpid=$!
# The pool is refilled by the scan, after the vCPUs took from it.
for _ in $(seq 100); do
	st=$("$PYTHON" "$W" status)
	[ "$(echo "$st" | py "d['vcpus'] == 3 and d['mem_bytes'] == 11 * d['vcpu_bytes']")" = True ] && break
	sleep 0.1
done
expect_eq "a history per live vCPU" 3 "$(echo "$st" | py "d['vcpus']")"
expect_eq "memory: a vCPU's history, whole pages, two rings of 513 records" True \
	"$(echo "$st" | py "d['vcpu_bytes'] % 4096 == 0 and d['vcpu_bytes'] >= 2 * 513 * 160")"
expect_eq "memory: 3 histories and the 8 ready for new vCPUs" True \
	"$(echo "$st" | py "d['mem_bytes'] == (3 + 8) * d['vcpu_bytes']")"
modprobe -r hvtrace || fail "unload with the watch armed failed"
kill "$gpid" 2>/dev/null
wait "$gpid"
wait "$WATCH_PID"
expect_eq "the watch's reader saw the family go" 3 $?
modprobe hvtrace || fail "reload failed"
expect_eq "after reload: disarmed, nothing held" "0 0 0" \
	"$("$PYTHON" "$W" status | py "'%d %d %d' % (d['armed'], d['vcpus'], d['mem_bytes'])")"
