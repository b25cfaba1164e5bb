# In-kernel thresholds: only exits at or above their threshold are
# recorded; the rest are counted below threshold.
. "$(dirname "$0")/lib.sh"

reset_config
hv set-threshold 50us
expect_eq "threshold after set-threshold 50us" 50000 \
	"$("$HVCTL" -j config | py "d['threshold_ns']")"

# Slow exits: the VMM sleeps 100ms; fast ones stay far below 50ms even
# under emulation. Threshold 50ms records exactly the slow ones, and the
# guest's last exit if its VMM took 50ms to destroy the VM (it never
# re-enters: its time runs to the destruction).
hv set-threshold 50ms
hv clear
hv start
r=$(guest --slow 5:100000 --cpuid 300 --pio 100) || exit 1
hv stop
ev=$("$HVCTL" -j drain) || fail "drain failed"
expect_eq "recorded exits that re-entered" 5 "$(echo "$ev" | events_check count entered)"
expect_eq "all on the slow port" True "$(echo "$ev" | events_check every entered "e['reason'] == 'IOIO' and (e['info1'] >> 16) == 0x81")"
expect_eq "all >= 100ms" True "$(echo "$ev" | events_check every entered 'e["duration_ns"] >= 100000000')"
expect_eq "the rest: the last exit, above 50ms" True "$(echo "$ev" | events_check every last "$LAST_EXIT_DONE" --and count last '<=' 1 --and every ev "e['duration_ns'] >= 50000000")"
nrec=$(echo "$ev" | events_check count ev)
# Every other exit of the run (CPUID, IOIO, first-touch NPF, host
# interrupts) is below threshold; stat counted the same exits.
seen=$(acct seen)
expect_eq "seen = every exit stat counted" "$seen" "$("$HVCTL" -j stat | py "sum(r['count'] for r in d['reasons'])")"
expect_eq "below threshold = seen - recorded" $((seen - nrec)) "$(acct below_threshold)"
[ "$seen" -ge $((5 + 300 + 100)) ] || fail "seen $seen < the guest's 405 exits"
check_accounting

# A per-reason threshold: everything else stays above 1h.
reset_config
hv set-threshold 3600s
hv set-threshold 0 --reason cpuid
hv start
r=$(guest --cpuid 250 --pio 100 --hlt 20) || exit 1
hv stop
ev=$("$HVCTL" -j drain) || fail "drain failed"
expect_eq "CPUID recorded with a 0 override" 250 "$(echo "$ev" | events_check count ev)"
expect_eq "only CPUID" True "$(echo "$ev" | events_check every ev "e['reason'] == 'CPUID'")"
rip=$(field rip_cpuid "$r")
expect_eq "guest RIP of every CPUID exit" True "$(echo "$ev" | events_check every ev "e['rip'] == $rip")"
check_accounting
reset_config
