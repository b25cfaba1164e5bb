# hvctl exporter against hvctl stat and a real Prometheus server (Debian's
# prometheus): after a known guest workload, /metrics says per exit
# reason, per vCPU and per vCPU state exactly what `hvctl -j stat --vcpus`
# says; Prometheus, scraping it every second, gives the same counts
# through its HTTP API, histogram_quantile() lands in the bucket of
# stat's p50 and p99, and each vCPU's time by state is stat's to the
# nanosecond; a second workload is in the next scrape (each scrape reads
# the module afresh); each VM's CPUID exits in Prometheus
# (hvtrace_exits_total{vm,reason}) are its VMM's own count, exactly;
# rate() over a window around a workload, per reason and per state, and
# each state's share of the vCPU's time are hvctl stat's, exactly;
# after hvctl clear hvctl stat counts from zero but no counter of the
# exporter goes back (resets() = 0); every PromQL expression of the
# Grafana dashboard and
# the Prometheus rules evaluates, the runnable share to a series per VM;
# SIGTERM ends the exporter with status 0.
. "$(dirname "$0")/lib.sh"

PROM=$HVT_ROOT/tests/e2e/prom.py
# The debug kernel (tinyconfig) has no IPv4: nothing to serve HTTP on.
"$PYTHON" -c 'import socket; socket.socket(socket.AF_INET)' 2>/dev/null ||
	skip "no IPv4 in this kernel (CONFIG_INET): the exporter serves HTTP"
W=$(mktemp -d /tmp/exporter.XXXXXX)
EPID=
PROM_PID=
trap 'kill $EPID $PROM_PID 2>/dev/null; wait 2>/dev/null; rm -rf "$W"' EXIT

# The exporter's counters are since load: a fresh module, so they start
# with this test's (hvctl stat's, until the clear below).
modprobe -r hvtrace || fail "unload"
modprobe hvtrace || fail "load"
reset_config
r=$(guest --vcpus 2 --pio 300 --cpuid 400 --hlt 30 --slow 3:1000) || exit 1
echo "  $r"
pid=$(field pid "$r")
cpuid1=$(field cpuid "$r")
# A guest whose vCPU 0 takes its LAPIC timer, for the deliveries' split
# (an in-kernel irqchip: a run of its own, --hlt needs none).
r0=$(guest --timer 40) || exit 1
echo "  $r0"
"$HVCTL" -j stat --vcpus >"$W/stat.json" || fail "hvctl stat failed"

# The exporter, on a port the kernel picks.
"$HVCTL" exporter --listen 127.0.0.1:0 >"$W/exporter.out" 2>&1 &
EPID=$!
for _ in $(seq 100); do
	addr=$(sed -n 's|^exporter: serving http://\(.*\)/metrics$|\1|p' "$W/exporter.out")
	[ -n "$addr" ] && break
	kill -0 "$EPID" 2>/dev/null || fail "hvctl exporter ended: $(cat "$W/exporter.out")"
	sleep 0.1
done
[ -n "$addr" ] || fail "hvctl exporter did not listen: $(cat "$W/exporter.out")"
echo "  exporter at $addr"
"$PYTHON" "$PROM" scrape "$addr" "$W/metrics" || fail "scrape failed"
grep -qx 'hvtrace_up 1' "$W/metrics" || fail "hvtrace_up is not 1: $(head -5 "$W/metrics")"
"$PYTHON" "$PROM" exits "$W/metrics" "$W/stat.json" ||
	fail "the exporter's figures are not hvctl stat's"
promtool check metrics <"$W/metrics" >"$W/promtool.out" 2>&1 &&
	[ ! -s "$W/promtool.out" ] ||
	fail "promtool check metrics: $(cat "$W/promtool.out")"
echo "  promtool check metrics: clean"

# What a scrape costs the host: the exporter's time per request, and
# its memory.
"$PYTHON" -c 'import sys, time, urllib.request
t = time.monotonic()
for _ in range(20):
    urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=60).read()
print("  a scrape takes %.1f ms (20 in a row, under emulation)" %
      ((time.monotonic() - t) / 20 * 1000))' "$addr"
echo "  exporter's memory: $(grep VmRSS /proc/$EPID/status | tr -s ' \t' ' ')"

# A Prometheus server scraping it every second.
prometheus_start "$addr" "$W"
"$PYTHON" "$PROM" wait "$prom" hvtrace_up 1 60 || fail "hvtrace_up"
"$PYTHON" "$PROM" query "$prom" "$W/stat.json" "$pid" ||
	fail "Prometheus's figures are not hvctl stat's"

# Every scrape reads the module: a second guest's exits are in the next.
r=$(guest --vcpus 1 --cpuid 250) || exit 1
pid2=$(field pid "$r")
cpuid2=$(field cpuid "$r")
cpuid=$("$HVCTL" -j stat | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')")
expect_eq "CPUID exits of both guests" $((2 * 400 + 250)) "$cpuid"
expect_eq "CPUID exits of both guests, by their VMMs" $((cpuid1 + cpuid2)) "$cpuid"
"$PYTHON" "$PROM" wait "$prom" 'sum(hvtrace_exits_total{reason="CPUID"})' "$cpuid" 30 ||
	fail "the second guest's exits did not reach Prometheus"

# Per VM and reason: each VM's CPUID exits are its VMM's count. The VM's
# number is hvctl stat's for its VMM's pid.
vm_of() {
	"$HVCTL" -j stat --vcpus |
		py "' '.join(sorted({str(v['vm_id']) for v in d['vcpus'] if v['vm_pid'] == $1}))"
}
vm1=$(vm_of "$pid")
vm2=$(vm_of "$pid2")
expect_eq "VMs of the two guests: one each, two" 2 "$(echo $vm1 $vm2 | wc -w)"
expect_eq "first guest's CPUID exits in Prometheus (vm $vm1)" "$cpuid1" \
	"$("$PYTHON" "$PROM" value "$prom" "hvtrace_exits_total{vm=\"$vm1\",pid=\"$pid\",reason=\"CPUID\"}")"
expect_eq "second guest's CPUID exits in Prometheus (vm $vm2)" "$cpuid2" \
	"$("$PYTHON" "$PROM" value "$prom" "hvtrace_exits_total{vm=\"$vm2\",pid=\"$pid2\",reason=\"CPUID\"}")"
expect_eq "resets of the exit counters so far" 0 \
	"$("$PYTHON" "$PROM" value "$prom" 'sum(resets(hvtrace_exits_total[10m]))')"

# rate() and the shares of time built on it, over a window that brackets
# a known workload: stat A taken while the VM's one vCPU halts 3 s in
# the kernel (its counters stand still; the first iteration made each
# reason's series), the workload after the halt, stat B once the guest
# has ended. Without extrapolation (samples on both ends of the window),
# rate() times the window is hvctl stat's difference, exactly. The
# exporter's answers hold a body up to 1 s old, so the window's ends are
# scrapes more than 1 s after T_A and T_B (each read after its stat); the
# halt lasts 4 s so that the first is still in it.
cpuid_sum="sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')"
cpuid0=$("$HVCTL" -j stat | py "$cpuid_sum")
"$HVGUEST" --halt 1:4000000 --pio 300 --cpuid 400 --slow 2:20000 \
	--seconds 5 >"$W/rate-guest.out" 2>&1 &
gpid=$!
in_halt=
for _ in $(seq 200); do
	"$HVCTL" -j stat --vcpus >"$W/rate-a.json" || fail "hvctl stat failed"
	t_a=$(date +%s.%N)
	in_halt=$(py "$cpuid_sum == $cpuid0 + 400 and any(o['vm_pid'] == $gpid and o['state'] == 'blocked' for o in d['out_of_guest'])" <"$W/rate-a.json")
	[ "$in_halt" = True ] && break
	kill -0 "$gpid" 2>/dev/null || break
	sleep 0.2
done
[ "$in_halt" = True ] ||
	fail "no stat in the guest's second halt: $(cat "$W/rate-guest.out")"
wait "$gpid" || fail "the halting guest failed: $(cat "$W/rate-guest.out")"
"$HVCTL" -j stat --vcpus >"$W/rate-b.json" || fail "hvctl stat failed"
t_b=$(date +%s.%N)
"$PYTHON" "$PROM" rates "$prom" "$W/rate-a.json" "$W/rate-b.json" "$gpid" \
	"$t_a" "$t_b" || fail "rate() over the workload is not hvctl stat's"
cpuid_rate=$(field cpuid "$(grep '^HVGUEST ' "$W/rate-guest.out" | tail -n 1)")

# hvctl clear starts hvctl stat's counts again, not the exporter's:
# Prometheus sees them go on, never back.
hv clear
r=$(guest --vcpus 1 --cpuid 30) || exit 1
pid3=$(field pid "$r")
cpuid=$("$HVCTL" -j stat | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')")
expect_eq "CPUID exits since the clear (hvctl stat)" 30 "$cpuid"
"$PYTHON" "$PROM" wait "$prom" 'sum(hvtrace_exits_total{reason="CPUID"})' \
	$((cpuid1 + cpuid2 + cpuid_rate + 30)) 30 ||
	fail "the count after the clear did not reach Prometheus"
expect_eq "third guest's CPUID exits in Prometheus" 30 \
	"$("$PYTHON" "$PROM" value "$prom" "sum(hvtrace_exits_total{pid=\"$pid3\",reason=\"CPUID\"})")"
expect_eq "first guest's CPUID exits in Prometheus after the clear" "$cpuid1" \
	"$("$PYTHON" "$PROM" value "$prom" "hvtrace_exits_total{vm=\"$vm1\",reason=\"CPUID\"}")"
for m in hvtrace_exits_total hvtrace_exit_seconds_total \
	hvtrace_exit_duration_seconds_count hvtrace_vcpu_exits_total \
	hvtrace_recording_seen_total; do
	expect_eq "resets of $m after hvctl clear" 0 \
		"$("$PYTHON" "$PROM" value "$prom" "sum(resets($m[10m]))")"
done

# A live VM's name and UUID (QEMU's -name, -uuid on its VMM's command
# line) in hvtrace_vm_info, joined to its exits by the vm label as a
# dashboard would.
uuid=6a1e5c4e-0075-4000-8000-000000000075
"$HVGUEST" --name web01 --uuid "$uuid" --forever --cpuid 1 \
	>/tmp/75-guest.out 2>&1 &
gpid=$!
for _ in $(seq 100); do
	[ "$(vm_of "$gpid")" != "" ] && break
	sleep 0.1
done
vmn=$(vm_of "$gpid")
[ -n "$vmn" ] || fail "the named guest's VM was not seen"
"$PYTHON" "$PROM" wait "$prom" "hvtrace_vm_info{name=\"web01\"}" 1 30 ||
	fail "the named VM did not reach Prometheus"
expect_eq "hvtrace_vm_info of web01: its vm, pid and uuid" 1 \
	"$("$PYTHON" "$PROM" value "$prom" "hvtrace_vm_info{name=\"web01\",vm=\"$vmn\",pid=\"$gpid\",uuid=\"$uuid\"}")"
named="sum(hvtrace_exits_total{reason=\"CPUID\"} * on (vm) group_left (name) hvtrace_vm_info{name=\"web01\"})"
"$PYTHON" "$PROM" wait "$prom" "$named > bool 0" 1 30 ||
	fail "web01's exits, joined by name, did not reach Prometheus"
expect_eq "web01's CPUID exits joined by name less those of its vm" 0 \
	"$("$PYTHON" "$PROM" value "$prom" "$named - sum(hvtrace_exits_total{vm=\"$vmn\",reason=\"CPUID\"})")"
kill -INT "$gpid"
wait "$gpid" || fail "the named guest failed: $(cat /tmp/75-guest.out)"

# The shipped rules and dashboard on this real data: every expression
# evaluates; the runnable share has a series per VM (NaN where a VM's
# vCPU time did not grow within 5 minutes).
"$PYTHON" "$HVT_ROOT/tests/exporter/promql.py" check "$prom" \
	"$HVT_ROOT/grafana/hvtrace-dashboard.json" \
	"$HVT_ROOT/prometheus/hvtrace-rules.yml" \
	instance_vm:hvtrace_vcpu_runnable:ratio_rate5m ||
	fail "the dashboard's or the rules' PromQL failed against Prometheus"

kill -TERM "$EPID"
wait "$EPID"
rc=$?
EPID=
expect_eq "hvctl exporter's status after SIGTERM" 0 "$rc"
