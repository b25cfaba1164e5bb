# Each filter kind records what it includes and nothing it excludes; the
# accounting identity holds throughout.
. "$(dirname "$0")/lib.sh"

# run_filtered FILTER... -- GUEST ARGS: record one guest run under the
# filter, print the drained events (JSON lines).
run_filtered() {
	local args=()

	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	reset_config
	hv filter "${args[@]}"
	hv start
	guest "$@" >/tmp/guest.line || exit 1
	hv stop
	check_accounting >&2
	"$HVCTL" -j drain || fail "drain failed"
}

# Learn the guest's RIPs (its code layout is fixed).
r=$(guest --cpuid 1) || exit 1
rip_cpuid=$(field rip_cpuid "$r")

ev=$(run_filtered reason cpuid -- --cpuid 120 --pio 80)
expect_eq "reason filter: count" 120 "$(echo "$ev" | events_check count ev)"
expect_eq "reason filter: only CPUID" True "$(echo "$ev" | events_check every ev "e['reason'] == 'CPUID'")"

ev=$(run_filtered reason io,msr -- --cpuid 120 --pio 80 --rdmsr 30)
echo "$ev" | events_py "sorted(set((e['reason'], e['info1'] >> 16 if e['reason'] == 'IOIO' else e.get('msr')) for e in ev))"
expect_eq "reason filter io,msr: only IOIO and MSR" True "$(echo "$ev" | events_check every ev "e['reason'] in ('IOIO', 'MSR')")"
expect_eq "reason filter io,msr: port 0x80" 80 "$(echo "$ev" | events_check count ev --where "e['reason'] == 'IOIO' and e['info1'] >> 16 == 0x80")"
expect_eq "reason filter io,msr: MSR" 30 "$(echo "$ev" | events_check count ev --where "e['reason'] == 'MSR'")"

ev=$(run_filtered vcpu 1 -- --vcpus 2 --cpuid 100)
expect_eq "vcpu filter: count" 100 "$(echo "$ev" | events_check count ev --where "e['reason'] == 'CPUID'")"
expect_eq "vcpu filter: only vCPU 1" True "$(echo "$ev" | events_check every ev "e['vcpu'] == 1")"

ev=$(run_filtered rip "$rip_cpuid-$rip_cpuid" -- --cpuid 90 --pio 60)
expect_eq "rip filter: count" 90 "$(echo "$ev" | events_check count ev)"
expect_eq "rip filter: only that RIP" True "$(echo "$ev" | events_check every ev "e['rip'] == $rip_cpuid")"

ev=$(run_filtered cpu 1 -- --cpu 1 --cpuid 70)
expect_eq "cpu filter (included): CPUID" 70 "$(echo "$ev" | events_check count ev --where "e['reason'] == 'CPUID'")"
ev=$(run_filtered cpu 0 -- --cpu 1 --cpuid 70)
expect_eq "cpu filter (excluded): CPUID" 0 "$(echo "$ev" | events_check count ev --where "e['reason'] == 'CPUID'")"

# pid: the VMM's pid is known before it runs when we exec it ourselves.
reset_config
(sleep 2; exec "$HVGUEST" --cpuid 50) >/tmp/g1 &
g1=$!
hv filter pid "$g1"
hv start
r2=$(guest --cpuid 40) || exit 1
wait "$g1" || fail "guest $g1 failed"
hv stop
check_accounting
ev=$("$HVCTL" -j drain)
expect_eq "pid filter: CPUID of the chosen VMM" 50 "$(echo "$ev" | events_check count ev --where "e['reason'] == 'CPUID'")"
expect_eq "pid filter: only that VMM" True "$(echo "$ev" | events_check every ev "e['vm_pid'] == $g1")"
reset_config
