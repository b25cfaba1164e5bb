# Long-lived hosts: VMs come and go. With max_vcpus=4, twenty VMs of two
# vCPUs are created and destroyed in one process (spare vCPUs held
# between rounds put the new ones at fresh addresses): every slot comes
# back, every round's VM has a number of its own, every exit is counted,
# against the guest's own counts and ftrace's kvm_exit. Then more vCPUs
# alive than max_vcpus: refused, counted, said in the kernel log.
. "$(dirname "$0")/lib.sh"

status() { "$HVCTL" -j status | py "$1"; }

modprobe -r hvtrace || fail "unload"
modprobe hvtrace max_vcpus=4 || fail "load with max_vcpus=4"
expect_eq "destruction followed" True "$(status "d['reclaim']")"
reset_config
ftrace_exits_start
out=$("$HVGUEST" --rounds 20 --vcpus 2 --pio 50 --cpuid 30 --mmio 10 \
	--spare-vcpus 4) || fail "hvguest --rounds: $out"
kernel=$(ftrace_exits_stop)
final=$(grep '^HVGUEST pid' <<<"$out" | tail -n 1)
expect_eq "rounds" 20 "$(field rounds "$final")"
expect_exits_as_ftrace "exits per reason (code count), hvtrace = ftrace's kvm_exit" "$kernel"
s=$("$HVCTL" -j stat --vcpus)
expect_eq "CPUID = the guest's" "$(field cpuid "$final")" \
	"$(echo "$s" | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')")"
expect_eq "IOIO = KVM's io_exits" "$(field kvm_io_exits "$final")" \
	"$(echo "$s" | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'IOIO')")"
expect_eq "never re-entered: each vCPU's last exit" "$(field last_exits "$final")" \
	"$(echo "$s" | py "sum(r['no_entry'] for r in d['reasons'])")"
expect_eq "vCPUs created" 40 "$(status "d['vcpus_created']")"
expect_eq "vCPUs reclaimed" 40 "$(status "d['vcpus_reclaimed']")"
expect_eq "vCPUs refused" 0 "$(status "d['vcpus_refused']")"
expect_eq "unpaired" 0 "$(acct unpaired)"

# Each round: its own VM number, two vCPUs, their exits = the round's.
pid=$(field pid "$final")
rounds=$(echo "$s" | py "sorted(set(v['vm_id'] for v in d['vcpus'] if v['gone'] and v['vm_pid'] == $pid))")
expect_eq "VM numbers of the 20 rounds" 20 "$(echo "$rounds" | py 'len(d)')"
expect_eq "vCPUs per VM" "[2]" \
	"$(echo "$s" | py "sorted(set(len([v for v in d['vcpus'] if v['gone'] and v['vm_id'] == i]) for i in $rounds))")"
want=$(grep '^HVGUEST round=' <<<"$out" | while read -r l; do field kvm_exits "$l"; done)
got=$(echo "$s" | py "' '.join(str(sum(v['count'] for v in d['vcpus'] if v['vm_id'] == i)) for i in $rounds)")
expect_eq "each round's exits = KVM's exits statistic of that round" "$(echo $want)" "$(echo $got)"
# Per vCPU: at least its guest program's exits (plus first touches and
# host interrupts), and the VMs' totals are the reasons' totals. (Each
# round is a VM of vCPU rows, so --by has a group for each.)
total=$(echo "$s" | py "sum(r['count'] for r in d['reasons'])")
expect_eq "exits of the 20 rounds' vCPUs = every exit" "$total" \
	"$(echo "$s" | py "sum(v['count'] for v in d['vcpus'] if v['gone'] and v['vm_pid'] == $pid)")"
echo "$s" | doc_check sum vcpus "e['count']" --where "e['vm_id'] in $rounds" --by "e['vm_id']" '>=' $(( 2 * (50 + 30 + 10 + 1) )) |
	grep -qx True || fail "a round's vCPUs counted fewer exits than its program made"
echo "  every round's vCPUs counted at least their program's exits"

# More vCPUs alive than max_vcpus: counted, said once, never silent.
dmesg -C
hv clear
"$HVGUEST" --vcpus 6 --pio 20 >/tmp/churn6.out || fail "hvguest --vcpus 6"
expect_eq "vCPUs refused" 2 "$(status "d['vcpus_refused']")"
dmesg | grep -q "a vCPU refused (4 of max_vcpus=4 alive)" ||
	fail "no kernel log line for the refused vCPUs"
[ "$(acct unpaired)" -gt 0 ] || fail "the refused vCPUs' exits are not counted as unpaired"
echo "  6 vCPUs with max_vcpus=4: $(status "d['vcpus_refused']") refused, $(acct unpaired) exits unpaired, logged"
hv clear
expect_eq "refused survives clear" 2 "$(status "d['vcpus_refused']")"

modprobe -r hvtrace && modprobe hvtrace || fail "reload with defaults"
reset_config
