# Thresholds on one part of an exit record exactly the exits whose part
# crosses it; halt time does not trigger the total threshold unless asked.
. "$(dirname "$0")/lib.sh"

# VMM time: only the slow exits sleep (3ms) in the VMM.
reset_config
hv set-threshold 2ms --on vmm
hv start
r=$(guest --slow 5:3000 --cpuid 200 --pio 50) || exit 1
hv stop
ev=$("$HVCTL" -j drain) || fail "drain failed"
# (The guest's last exit never re-enters: its VMM time runs to the VM's
# destruction and may well cross 2ms too.)
expect_eq "--on vmm 2ms: recorded exits that re-entered" 5 "$(echo "$ev" | events_py 'len(entered)')"
expect_eq "all on the slow port" True "$(echo "$ev" | events_py "all(e['reason'] == 'IOIO' and (e['info1'] >> 16) == 0x81 for e in entered)")"
expect_eq "and at most the last exit besides" True "$(echo "$ev" | events_py "$LAST_EXITS_DONE and len(last) <= 1")"
expect_eq "below = seen - recorded" $(( $(acct seen) - $(acct recorded) )) "$(acct below_threshold)"
check_accounting

# Halts of 20ms: not above a 5ms total threshold by default, above it
# with --include-halt, and exactly them with --on halt.
for mode in exclude include on-halt; do
	reset_config
	case $mode in
	exclude) hv set-threshold 5ms ;;
	include) hv set-threshold 5ms --include-halt ;;
	on-halt) hv set-threshold 5ms --on halt ;;
	esac
	hv start
	r=$(guest --halt 5:20000 --cpuid 100) || exit 1
	hv stop
	ev=$("$HVCTL" -j drain) || fail "drain failed"
	rip=$(field rip_halt "$r")
	late=$(field halt_late "$r")
	halts=$(echo "$ev" | events_py "len([e for e in ev if e['reason'] == 'HLT' and e['rip'] == $rip])")
	case $mode in
	exclude) expect_eq "halts recorded (5ms, halt excluded)" 0 "$halts" ;;
	*) expect_eq "halts recorded ($mode, $late late)" 5 "$halts"
	   # Anything else recorded crossed the threshold on its own: under
	   # emulation on a loaded host an exit can take 5ms.
	   case $mode in
	   include) what="e['duration_ns']" ;;
	   on-halt) what="e['halt_ns']" ;;
	   esac
	   expect_eq "nothing else below the threshold ($mode)" True \
		"$(echo "$ev" | events_py "all($what >= 5000000 for e in entered)")"
	   echo "  others recorded ($mode): $(echo "$ev" | events_py "len(entered) - 5")"
	   expect_eq "the last exit ($mode)" True "$(echo "$ev" | events_py "$LAST_EXITS_DONE")" ;;
	esac
	check_accounting
done
reset_config
