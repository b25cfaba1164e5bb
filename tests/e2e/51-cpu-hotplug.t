# CPU hotplug while a guest runs and `hvctl record` drains: a CPU that
# comes up for the first time gets its state then (when the VM has one
# held offline since boot, e.g. `tests/vm/run --cpus 3 --append maxcpus=2`),
# a CPU that goes down keeps what it counted and its ring is drained; no
# splat, counts exact against the guest and ftrace, accounting exact.
. "$(dirname "$0")/lib.sh"

online() { cat /sys/devices/system/cpu/online; }
traced() { "$HVCTL" -j status | py "len(d['accounting']['cpus'])"; }

reset_config
traced0=$(traced)
new=
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -f "$c/online" ] && [ "$(cat "$c/online")" = 0 ] && new=${c##*cpu} && break
done
if [ -n "$new" ]; then
	echo 1 > "/sys/devices/system/cpu/cpu$new/online" ||
		fail "cannot bring CPU $new up"
	expect_eq "CPUs traced after CPU $new came up" $((traced0 + 1)) "$(traced)"
	cpu=$new
else
	echo "  no CPU held offline at boot: CPU 1 goes down and up"
	cpu=1
fi

ftrace_exits_start
"$HVCTL" record -q -o /tmp/hp --threshold 0 --duration 300s &
rec=$!
wait_recording
# Two vCPUs on the CPU that comes and goes, and on CPU 0.
"$HVGUEST" --vcpus 2 --cpu "0,$cpu" --pio 4000 --cpuid 4000 >/tmp/hp-guest.out 2>&1 &
g=$!
for i in 1 2 3; do
	sleep 2
	echo 0 > "/sys/devices/system/cpu/cpu$cpu/online" || fail "cannot take CPU $cpu down"
	echo "  CPU $cpu down ($(online) online)"
	sleep 2
	echo 1 > "/sys/devices/system/cpu/cpu$cpu/online" || fail "cannot bring CPU $cpu up"
	echo "  CPU $cpu up ($(online) online)"
done
wait $g || fail "guest: $(cat /tmp/hp-guest.out)"
line=$(grep '^HVGUEST ' /tmp/hp-guest.out | tail -n 1)
kernel=$(ftrace_exits_stop)
kill -INT $rec
wait $rec || fail "record failed"

expect_exits_as_ftrace "exits per reason (code count), hvtrace = ftrace's kvm_exit" "$kernel"
expect_eq "CPUID = the guest's" "$(field cpuid "$line")" \
	"$("$HVCTL" -j stat | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')")"
check_accounting
expect_eq "drained = recorded" "$(acct recorded)" "$(acct drained)"
expect_eq "events in the trace = recorded" "$(acct recorded)" \
	"$("$HVCTL" dump /tmp/hp | wc -l)"
expect_eq "CPU $cpu still traced" 1 \
	"$("$HVCTL" -j status | py "len([c for c in d['accounting']['cpus'] if c['cpu'] == $cpu])")"
reset_config
