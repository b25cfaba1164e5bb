# Big hosts: many more possible CPUs than online ones (run it in a VM
# with --maxcpus N, e.g. 255: tests/check does). Memory is held for the
# online CPUs only; every command works; replies that grow with the host
# come in messages of a page (checked with 4000-byte receive buffers in
# 20-ynl); the CPU filter takes the highest possible CPU.
. "$(dirname "$0")/lib.sh"

count() {	# "0-3,5" -> 5
	local n=0 r

	for r in $(tr ',' ' ' <"$1"); do
		case "$r" in
		*-*) n=$((n + ${r#*-} - ${r%-*} + 1)) ;;
		*) n=$((n + 1)) ;;
		esac
	done
	echo $n
}
possible=$(count /sys/devices/system/cpu/possible)
online=$(count /sys/devices/system/cpu/online)
echo "  $possible possible CPUs, $online online"

reset_config
st=$("$HVCTL" -j status) || fail "status"
mapfile -t s <<<"$(echo "$st" | json_vals "d['nr_cpus']" "d['cpus_traced']" \
	"d['mem_bytes']" "d['mem_cpu_bytes']" "d['mem_vcpu_bytes']" "d['vcpus_max']" \
	"len(d['accounting']['cpus'])")"
expect_eq "possible CPUs" "$possible" "${s[0]}"
expect_eq "CPUs traced" "$online" "${s[1]}"
expect_eq "per-CPU accounting rows" "$online" "${s[6]}"
# Everything hvtrace holds: the traced CPUs' state, the vCPU tables and
# little else (4 MiB of slack for small allocations).
limit=$(( online * s[3] + s[5] * s[4] + 4 * 1024 * 1024 ))
[ "${s[2]}" -le "$limit" ] ||
	fail "hvtrace holds ${s[2]} bytes, more than $online CPUs' ${s[3]} and the tables"
echo "  memory ${s[2]} bytes: ${s[3]} per traced CPU, ${s[4]} per vCPU"
if [ "$possible" -gt "$online" ]; then
	[ "${s[2]}" -lt $(( possible * s[3] )) ] ||
		fail "memory as if every possible CPU were traced"
fi

# The CPU filter names the highest possible CPU; config reads it back.
last=$((possible - 1))
hv filter cpu "$last"
expect_eq "CPU filter" "[$last]" "$("$HVCTL" -j config | py "d['filters']['cpus']")"
hv filter clear

# /dev/hvtrace: a CPU that never came online has no ring to map.
if [ "$possible" -gt "$online" ]; then
	RD="$PYTHON $(dirname "$0")/ring_device.py"
	expect_eq "the ring of CPU $last (never online)" "errno ENODEV" "$($RD info "$last")"
	b=$($RD info 0 | py "d['bytes']")
	expect_eq "mapping CPU $last's" "errno ENODEV" "$($RD map "$b" $((b * last)) r)"
fi

# A guest, recorded and drained (in place: hvctl maps the rings there
# are and looks for the others each second), on such a host.
"$HVCTL" record -q -o /tmp/big --threshold 0 --duration 60s &
rec=$!
wait_recording
line=$(guest --vcpus 2 --pio 200 --cpuid 100)
kill -INT $rec
wait $rec || fail "record"
check_accounting
expect_eq "events in the trace = recorded" "$(acct recorded)" \
	"$("$HVCTL" dump /tmp/big | wc -l)"
"$HVCTL" stat --vcpus >/dev/null || fail "stat --vcpus"
"$HVCTL" report /tmp/big >/dev/null || fail "report"
reset_config
