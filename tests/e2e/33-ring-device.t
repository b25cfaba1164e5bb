# /dev/hvtrace, the rings read in place (tests/e2e/ring_device.py uses it
# by hand, as the uapi header says, not through hvctl's code): its owner
# shuts out every other reader and every change that would empty or
# replace the rings; its ioctl refuses counts that cannot be right and
# then changes nothing; a mapping is read-only for good and keeps the
# rings owned until it goes; what is read in place is exactly what was recorded, in
# both modes; hvctl record drains through it, and through netlink where
# the node is missing, with the same trace.
. "$(dirname "$0")/lib.sh"

RD="$PYTHON $(dirname "$0")/ring_device.py"

# as CAPS CMD...: CMD as root whose bounding set lacks CAPS.
as() {
	local caps=$1

	shift
	setpriv --bounding-set="$caps" -- "$@"
}

# held CMD...: CMD's status and first line while the device is held.
held() {
	$RD hold "$@" | py "'%d %s' % (d['rc'], d['out'])"
}

reset_config
expect_eq "the node" "crw------- root" "$(stat -c '%A %U' /dev/hvtrace)"
expect_eq "without CAP_SYS_ADMIN (every other capability)" "errno EPERM" \
	"$(as -sys_admin $RD open)"
expect_eq "the file handed to such a process: ioctl" "errno EPERM" \
	"$($RD handoff -sys_admin info 0)"
b=$($RD info 0 | py "d['bytes']")
expect_eq "the file handed to such a process: mmap" "errno EPERM" \
	"$($RD handoff -sys_admin map "$b" 0 r)"
expect_eq "the same file kept by root: ioctl" 0 "$($RD handoff -perfmon info 0 | py "d['cpu']")"

# 1. One owner at a time; nothing that would empty or replace the rings.
expect_eq "a second open" "0 errno EBUSY" "$(held $RD open)"
out=$(held "$HVCTL" drain)
case "$out" in
"1 "*"owns the buffers"*|"1 "*"owned by another reader"*) echo "  drain while held: $out" ;;
*) fail "drain while the device is held: $out" ;;
esac
for cmd in "buffer --size 64" "buffer --mode overwrite" clear; do
	out=$(held "$HVCTL" $cmd)
	[ "${out%% *}" != 0 ] || fail "'hvctl $cmd' accepted while the device is held"
	echo "  hvctl $cmd while held: $out"
done
expect_eq "status while held" "0 {'reader': 'draining'}" \
	"$(held "$PYTHON" -c "import json, subprocess; d = json.loads(subprocess.run(['$HVCTL', '-j', 'status'], capture_output=True).stdout); print({'reader': d['reader']})")"
expect_eq "the buffers after" 2560 "$("$HVCTL" -j config | py "d['buffer_kb']")"
hv drain >/dev/null 2>&1	# free again once closed

# 2. The ioctl: where each ring is; refusals change nothing.
ncpu=$("$HVCTL" -j status | py "d['nr_cpus']")
info=$($RD info 1)
expect_eq "CPU 1's ring: mode, slots, bytes, offset" "0 16384 2621440 2621440" \
	"$(echo "$info" | py "'%d %d %d %d' % (d['mode'], d['slots'], d['bytes'], d['offset'])")"
tail1=$(echo "$info" | py "d['tail']")	# where the last clear left it
expect_eq "a CPU beyond the possible ($ncpu)" "errno EINVAL" "$($RD info "$ncpu")"
expect_eq "CPU 2^32-1" "errno EINVAL" "$($RD info 4294967295)"
hv start
guest --cpu 1 --pio 50 >/dev/null || exit 1
hv stop
rec=$(acct recorded)
[ "$rec" -ge 50 ] || fail "recorded $rec, want the 50 PIO exits at least"
on1=$("$HVCTL" -j status | py "[c['recorded'] for c in d['accounting']['cpus'] if c['cpu'] == 1][0]")
expect_eq "past what was written" "errno EINVAL" "$($RD release 1 $((on1 + 1)) $((on1 + 1)))"
expect_eq "more taken than passed" "errno EINVAL" "$($RD release 1 1 2)"
expect_eq "discard mode: a gap" "errno EINVAL" "$($RD release 1 2 1)"
expect_eq "nothing released by them" "$tail1" "$($RD info 1 | py "d['tail']")"

# 3. The mappings: whole rings, never writable.
len=2621440
expect_eq "writable" "errno EPERM" "$($RD map $len 0 rw)"
expect_eq "private, copy-on-write" "errno EPERM" "$($RD map $len 0 private)"
expect_eq "executable" "errno EPERM" "$($RD map $len 0 x)"
expect_eq "made writable" "mprotect errno EACCES" "$($RD map $len 0 r)"
expect_eq "part of a ring" "errno EINVAL" "$($RD map $((len - 4096)) 0 r)"
expect_eq "across two rings" "errno EINVAL" "$($RD map $len 4096 r)"
expect_eq "beyond the possible CPUs" "errno EINVAL" "$($RD map $len $((len * ncpu)) r)"

# 4. Read in place: every record recorded, once, whole, as exits.
got=$($RD read)
expect_eq "read in place = recorded" "$rec" "$(echo "$got" | py "sum(c['taken'] for c in d.values())")"
expect_eq "all exits, none lapped or torn" "[1] 0 0" \
	"$(echo "$got" | py "'%s %d %d' % (sorted({int(k) for c in d.values() for k in c['types']}), sum(c['lapped'] for c in d.values()), sum(c['torn'] for c in d.values()))")"
expect_eq "CPU 1: taken, the new tail" "$on1 $((tail1 + on1))" "$(echo "$got" | py "'%d %d' % (d['1']['taken'], d['1']['tail'])")"
expect_eq "module drained" "$rec" "$(acct drained)"
expect_eq "nothing left for netlink" 0 "$("$HVCTL" -j drain | events_check count ev)"
check_accounting

# 5. Overwrite mode: the newest ring's worth, the rest counted lapped.
reset_config
hv buffer --size 4 --mode overwrite	# 16 records a CPU
hv start
guest --cpu 1 --pio 200 >/dev/null || exit 1
hv stop
on1=$("$HVCTL" -j status | py "[c['recorded'] for c in d['accounting']['cpus'] if c['cpu'] == 1][0]")
got=$($RD read)
expect_eq "CPU 1: taken, passed, overwritten, lost" "16 $on1 $((on1 - 16)) 0" \
	"$(echo "$got" | py "'%d %d %d %d' % (d['1']['taken'], d['1']['consumed'], d['1']['overwritten'], d['1']['lost'])")"
expect_eq "module: drained + overwritten = recorded" "$(acct recorded)" \
	$(( $(acct drained) + $(acct overwritten) ))

# 6. A mapping holds its file, so the lease: the rings stay in place
# until it goes.
reset_config
out=$($RD stale "$HVCTL")
expect_eq "resize with the file closed and its mapping there, then gone" \
	'{"mapped": 1, "read": true, "unmapped": 0}' "$out"
expect_eq "the new size" 8 "$("$HVCTL" -j config | py "d['buffer_kb']")"

# 7. Random requests, mostly wrong (a seed a run, printed): refused or
# harmless; the kernel log is checked after the test, and 8 still works.
reset_config
seed=$RANDOM
hv start
guest --cpu 1 --pio 100 >/dev/null || exit 1
hv stop
ends=$($RD fuzz 3000 "$seed")
echo "  fuzz (seed $seed): $ends"
expect_eq "fuzz: only refusals the ABI names" "[]" \
	"$(echo "$ends" | py "sorted(set(d) - {'ok', 'EINVAL', 'ENODEV', 'errno EINVAL', 'errno ENOMEM', 'errno ENODEV', 'errno EOVERFLOW', 'mprotect errno EACCES'})")"
check_accounting

# 8. hvctl record in place, then through netlink (no node): the same.
reset_config
for way in device netlink; do
	[ $way = netlink ] && mv /dev/hvtrace /dev/hvtrace.away
	"$HVCTL" record -o /tmp/rd.$way --threshold 0 --duration 300s 2>/tmp/rd.err &
	rec=$!
	wait_recording
	guest --vcpus 2 --pio 3000 --cpuid 3000 >/dev/null || exit 1
	kill -INT $rec
	wait $rec || fail "record ($way) exited $?: $(cat /tmp/rd.err)"
	[ $way = netlink ] && mv /dev/hvtrace.away /dev/hvtrace
	n=$("$HVCTL" dump /tmp/rd.$way | wc -l)
	expect_eq "$way: events in the trace = recorded" "$(acct recorded)" "$n"
	expect_eq "$way: lost" 0 "$(acct lost)"
	if [ $way = netlink ]; then
		grep -q "draining through netlink" /tmp/rd.err ||
			fail "no note of the fallback: $(cat /tmp/rd.err)"
	elif grep -q netlink /tmp/rd.err; then
		fail "record fell back with the device there: $(cat /tmp/rd.err)"
	fi
	check_accounting
	reset_config
done
expect_eq "the same PIO exits both ways" \
	"$("$HVCTL" dump /tmp/rd.device --format json | events_check count ev --where "e['reason'] == 'IOIO'")" \
	"$("$HVCTL" dump /tmp/rd.netlink --format json | events_check count ev --where "e['reason'] == 'IOIO'")"
reset_config
