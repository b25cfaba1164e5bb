# What each guest-physical fault hit, exactly, against the guest and the
# kernel's own tracing: hvguest's MMIO writes and reads are VMM-emulated
# MMIO (4-byte writes, 4-byte reads), its reads of the in-kernel local
# APIC kernel-emulated MMIO (4-byte reads), its writes to pages the VMM
# dropped after each iteration RAM; ftrace's kvm_mmio (type, GPA) counts
# each access as hvtrace's records say. dump's line and JSON, the
# report's pages and hot spots, and babeltrace2 agree.
. "$(dirname "$0")/lib.sh"

reset_config
hv set-threshold 0
mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" ||
	fail "cannot mount tracefs"
mmio_hist="$TRACEFS/events/kvm/kvm_mmio/trigger"
echo 'hist:keys=type,gpa:vals=hitcount:size=256' >"$mmio_hist" ||
	fail "cannot set a hist trigger on kvm_mmio"
t=/tmp/gpa-class
rm -rf $t
"$HVCTL" record -q -o $t --duration 60s &
rec=$!
wait_recording
r=$(guest --vcpus 2 --mmio 3 --mmio-read 2 --lapic 2 --touch 4 --pio 1 \
	--seconds 0.5) || exit 1
kill -INT $rec
wait $rec || fail "record exited $?"
hist=$(cat "$TRACEFS/events/kvm/kvm_mmio/hist")
echo '!hist:keys=type,gpa:vals=hitcount:size=256' >"$mmio_hist"
echo "$r"

W=$(field mmio_gpa "$r") R=$(field mmio_read_gpa "$r")
L=$(field lapic_gpa "$r") T=$(field touch_gpa "$r")
pages=$(field touch_pages "$r")
writes=$(field mmio "$r") reads=$(field mmio_read "$r")
lapic=$(field lapic "$r") touches=$(field touch "$r")
[ "$writes" -gt 0 ] && [ "$reads" -gt 0 ] && [ "$lapic" -gt 0 ] &&
	[ "$touches" -gt 0 ] || fail "the guest did not do every access: $r"
# vCPU i's pages: TOUCH_GPA + i * pages * 4 KiB, two vCPUs.
in_touch="'gpa' in e and $T <= e['gpa'] < $T + 2 * $pages * 4096"

d=$("$HVCTL" dump $t --format json)
# Each access is one exit with it. KVM may also retry a fault without
# emulating (the page changed under it: an invalidation, seen on the
# debug kernel), and the guest faults again: that exit made no access,
# and says so (ram), as the kernel's own count below agrees.
RETRY="(e['gpa_class'], 'mmio_access' in e) == ('ram', False)"
# accesses WHAT ADDR N CLASS ACCESS: N exits at ADDR with a 4-byte
# ACCESS of CLASS, any other there a retried fault.
accesses() {
	local at="e.get('gpa') == $2"

	expect_eq "$1: each one exit, a 4-byte $5 ($4)" True \
		"$(echo "$d" | events_check count exits --where "$at and 'mmio_access' in e" == "$3" --and every exits "$RETRY or (e['gpa_class'], e['mmio_access'], e['mmio_len']) == ('$4', '$5', 4)" --where "$at")"
	echo "  $1: $(echo "$d" | events_check count exits --where "$at and $RETRY") faults retried"
}
accesses "MMIO writes" "$W" "$writes" vmm-mmio write
accesses "MMIO reads" "$R" "$reads" vmm-mmio read
accesses "local APIC reads" "$L" "$lapic" kernel-mmio read
expect_eq "touches of dropped pages: each a RAM fault (or more: retried), no device access" True \
	"$(echo "$d" | events_check count exits --where "$in_touch" '>=' "$touches" --and every exits "$RETRY" --where "$in_touch")"
expect_eq "every GPA fault says what it hit; nothing else does" True \
	"$(echo "$d" | events_check every exits "('gpa' in e) == ('gpa_class' in e)")"
expect_eq "device accesses only at the guest's MMIO addresses" True \
	"$(echo "$d" | events_check every exits "e.get('gpa') in ($W, $R, $L)" --where "'mmio_access' in e")"

# The kernel's count of each access: kvm_mmio's type 0 an unsatisfied
# read (asked of the VMM), 1 a read (done: by KVM, or the VMM's answer
# when the vCPU runs again), 2 a write. ftrace's hist map drops a hit
# when a CPU finds a key half inserted by another for too long (both
# vCPUs' first access at once, under emulation: lib.sh's
# expect_exits_as_ftrace), and says so: then the guest's counts are
# exactly the dropped hits more, none fewer.
want=$(printf '%d %d %d\n' 0 $((R)) "$reads" 1 $((L)) "$lapic" \
	1 $((R)) "$reads" 2 $((W)) "$writes" | sort)
got=$(sed -n 's/^{ type: *\([0-9]*\), gpa: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1 \2 \3/p' \
	<<<"$hist" | sort)
dropped=$(sed -n 's/^ *Dropped: *\([0-9]*\)$/\1/p' <<<"$hist")
[ -n "$dropped" ] || fail "no Dropped: line in ftrace's hist"
expect_eq "ftrace's kvm_mmio: every access, as hvtrace classed it (less $dropped dropped)" True \
	"$("$PYTHON" -c 'import sys
want = {tuple(l.split()[:2]): int(l.split()[2]) for l in sys.argv[1].splitlines()}
got = {tuple(l.split()[:2]): int(l.split()[2]) for l in sys.argv[2].splitlines()}
print(set(got) <= set(want) and all(got.get(k, 0) <= n for k, n in want.items())
      and sum(want.values()) - sum(got.values()) == int(sys.argv[3]))' "$want" "$got" "$dropped")"
echo "  ftrace: $(tr '\n' ';' <<<"$got") dropped $dropped"

line=$("$HVCTL" dump $t | grep -m1 " gpa $(printf '0x%x' $W) ")
case "$line" in
*" vmm-mmio 4-byte write rip $(field rip_mmio "$r") "*) ;;
*) fail "dump's line of an MMIO write: $line" ;;
esac
echo "  $line"

rep=$("$HVCTL" -j report $t --top 1000) || fail "report failed"
mem="dict((x['page'], x['memory']) for x in d['top_pages']['entries'])"
expect_eq "report: each page's memory" \
	"['vmm-mmio w4', 'vmm-mmio r4', 'kernel-mmio r4', 'ram']" \
	"$(echo "$rep" | py "[$mem.get(p) for p in ($W & ~0xfff, $R & ~0xfff, $L & ~0xfff, $T)]")"
expect_eq "report: hot spots at the MMIO write's RIP" "['vmm-mmio w4']" \
	"$(echo "$rep" | py "[x['memory'] for x in d['top_spots']['entries'] if x.get('rip') == $(field rip_mmio "$r")]")"
"$HVCTL" report $t | grep -A6 '^Guest-physical pages'

n=$(echo "$d" | events_check count ev)
expect_eq "babeltrace2 reads every event" "$n" \
	"$(babeltrace2 $t | grep -c kvm_exit_)"
expect_eq "module lost" 0 "$(acct lost)"
check_accounting
reset_config
