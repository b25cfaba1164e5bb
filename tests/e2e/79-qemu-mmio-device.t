# The device behind an MMIO exit, named by the VMM: a real Linux guest of
# the host's QEMU, with QEMU's edu device (PCI 1234:11e8), reads edu's
# identification register R times through its BAR (qemu-linux-guest's
# init, qlg.edu=R); hvctl record --qmp asks QEMU's monitor for its
# memory map. Each read is one NPF at the BAR the guest saw, a 4-byte
# read QEMU emulated (vmm-mmio), of the device QEMU's map places there
# (edu-mmio): in dump's line and JSON, the trace's vmm-map.tsv and the
# report's pages.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-linux-guest/lib.sh"

# As 72: a nested Linux boot under the debug kernel mostly hangs.
[ "$HVT_KERNEL_KIND" = debug ] &&
	skip "a nested Linux boot under the debug kernel mostly hangs: 34 covers the classes"

R=40
QMP=/tmp/qlg.qmp
T=/tmp/qlg-mmio
OUT=/tmp/qlg-mmio-console
QLG_QEMU_ARGS="-device edu -qmp unix:$QMP,server=on,wait=off"
QLG_APPEND="qlg.edu=$R"

reset_config
# A boot that hangs is tried again (qemu-linux-guest/lib.sh), its trace
# thrown away: the recording follows each QEMU from its start.
rc=2
for ((try = 1; try <= QLG_TRIES && rc == 2; try++)); do
	rm -rf $T $QMP
	qlg_start $OUT 1 500 || fail "cannot start QEMU"
	for _ in $(seq 100); do
		[ -S $QMP ] && break
		sleep 0.05
	done
	"$HVCTL" record -q -o $T --qmp $QMP --threshold 0 --reason NPF \
		--pid "$QLG_PID" &
	rec=$!
	wait_recording
	qlg_wait
	rc=$?
	kill -INT $rec
	wait $rec || fail "record exited $?"
done
case $rc in
0) ;;
2) skip "all $QLG_TRIES nested boots hung or panicked (QEMU's emulated SVM; as often without hvtrace)" ;;
*) fail "the Linux guest did not finish" ;;
esac

edu=$(grep -a '^QLG-EDU:' $OUT | tr -d '\r')
echo "  $edu (boot ${QLG_SECS}s, qemu $QLG_PID)"
read -r _ w1 bar w2 id w3 reads <<<"$edu"
expect_eq "the guest read edu's identification register" \
	"bar id 0x010000ed reads $R" "$w1 $w2 $id $w3 $reads"
[[ $bar =~ ^0x[0-9a-f]+$ ]] || fail "no BAR address: $edu"

grep -a edu $T/hvtrace/vmm-map.tsv | sed 's/^/  map: /'
expect_eq "the trace's map: edu-mmio at the BAR, QEMU's" True \
	"$(awk -F'\t' -v p="$QLG_PID" -v b="$bar" '$1 == p && $2 "" == b "" && $4 == "i/o" && $5 == "edu-mmio" { f = 1 } END { print f ? "True" : "False" }' $T/hvtrace/vmm-map.tsv)"
d=$("$HVCTL" dump $T --format json)
at="e.get('gpa') == $bar"
expect_eq "each read one exit, a 4-byte read QEMU emulated, of edu-mmio" True \
	"$(echo "$d" | events_check count exits --where "$at" == $R --and every exits "(e['gpa_class'], e['mmio_access'], e['mmio_len'], e['device']) == ('vmm-mmio', 'read', 4, 'edu-mmio')" --where "$at")"
expect_eq "no other exit in edu's BAR" 0 \
	"$(echo "$d" | events_check count exits --where "'gpa' in e and $bar < e['gpa'] < $bar + 0x100000")"
line=$("$HVCTL" dump $T | grep -m1 " gpa $bar ")
case "$line" in
*" vmm-mmio (edu-mmio) 4-byte read "*) echo "  $line" ;;
*) fail "dump's line of an edu read: $line" ;;
esac
expect_eq "report: edu's page, what it hit and its device" \
	"['vmm-mmio r4', 'edu-mmio', $R]" \
	"$("$HVCTL" -j report $T --top 1000 | py "[[x['memory'], x.get('device'), x['count']] for x in d['top_pages']['entries'] if x['page'] == $bar][0]")"
"$HVCTL" report $T | grep -A4 '^Guest-physical pages'
reset_config
