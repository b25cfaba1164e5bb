# hvctl stat counts exactly what the guest did, per reason and per vCPU,
# and exactly what the kernel's own kvm_exit tracepoint saw, reason by
# reason: every exit, also each vCPU's last one (its OUT to the done port),
# which never re-enters and ends when hvguest destroys the VM.
. "$(dirname "$0")/lib.sh"

reset_config
ftrace_exits_start
r=$(guest --vcpus 2 --pio 300 --mmio 200 --cpuid 400 --rdmsr 150 \
	--wrmsr 50 --hlt 30 --slow 3:1000) || exit 1
echo "  $r"
kernel=$(ftrace_exits_stop)
s=$("$HVCTL" -j stat --vcpus) || fail "hvctl stat failed"
expect_exits_as_ftrace "exits per reason (code count), hvtrace = ftrace's kvm_exit" "$kernel"
count() {
	echo "$s" | py "sum(r['count'] for r in d['reasons'] if r['reason'] == '$1')"
}
expect_eq "IOIO count = KVM's io_exits" "$(field kvm_io_exits "$r")" "$(count IOIO)"
expect_eq "IOIO count" $((2 * (300 + 3 + 1))) "$(count IOIO)"
expect_eq "never re-entered: each vCPU's last exit" 2 \
	"$(echo "$s" | py "sum(r.get('no_entry', 0) for r in d['reasons'])")"
expect_eq "CPUID count" $((2 * 400)) "$(count CPUID)"
expect_eq "MSR count" $((2 * (150 + 50))) "$(count MSR)"
expect_eq "HLT count" $((2 * 30)) "$(count HLT)"
npf=$(count NPF)
# NPF: the MMIO accesses plus first touches of guest memory.
[ "$npf" -ge $((2 * 200)) ] && [ "$npf" -le $((2 * 200 + 16)) ] ||
	fail "NPF count $npf, want 400 MMIO + a few first touches"
echo "  NPF count = $npf (400 MMIO + first touches)"

# Per vCPU: the guest's two threads, each with its share of every exit.
pid=$(field pid "$r")
expect_eq "vCPUs of the guest" 2 "$(echo "$s" | py "len([v for v in d['vcpus'] if v['vm_pid'] == $pid])")"
total=$(echo "$s" | py "sum(r['count'] for r in d['reasons'])")
expect_eq "vCPU counts add up" "$total" "$(echo "$s" | py "sum(v['count'] for v in d['vcpus'] if v['vm_pid'] == $pid)")"
tids=$(field tids "$r")
expect_eq "vCPU thread ids" "$tids" "$(echo "$s" | py "','.join(str(v['tid']) for v in sorted(d['vcpus'], key=lambda v: v['vcpu']) if v['vm_pid'] == $pid)")"

# Percentiles are ordered and within the exact extremes.
echo "$s" | doc_check every reasons "e['min_ns'] <= e['p50_ns'] <= e['p99_ns'] <= e['p999_ns'] <= e['max_ns']" --where "'p50_ns' in e" |
	grep -qx True || fail "percentiles out of order"
# The slow exits (>= 1 ms in the VMM) are the IOIO maximum's lower bound.
io_max=$(echo "$s" | py "[r['max_ns'] for r in d['reasons'] if r['reason'] == 'IOIO'][0]")
[ "$io_max" -ge 1000000 ] || fail "IOIO max $io_max < 1ms slow exit"
echo "  IOIO max ${io_max}ns >= 1ms"
