# Unload and reload hvtrace many times while guests exit at full rate: with
# and without autostart=1, with a multicast listener joined all along and,
# every fifth cycle, `hvctl record` draining. Reading the rings in place
# (/dev/hvtrace open and mapped) it holds the module: the unload is
# refused, says why, and goes through once the recorder stopped with its
# trace; draining through netlink (no device node), the module goes from
# under it and it notices. No warning (the harness scans the log), no
# hang, and exits counted after.
. "$(dirname "$0")/lib.sh"

# 30 cycles on the stock kernels, 10 on the others: a cycle takes 4 s
# under emulation on a busy host, about 19 s with KASAN and lockdep.
# HVT_CYCLES=100 in the VM's environment runs more, by hand.
case "$HVT_KERNEL_KIND" in
stock) cycles=${HVT_CYCLES:-30} ;;
*) cycles=${HVT_CYCLES:-10} ;;
esac
MCAST="$PYTHON $(dirname "$0")/nl_mcast.py"

# One vCPU at full rate on CPU 1 (MMIO to the VMM, PIO, CPUID), so that
# CPU 0 is left for modprobe and the tools.
"$HVGUEST" --forever --cpu 1 --pio 1000 --cpuid 1000 --mmio 200 \
	>/tmp/guest.out 2>&1 &
gpid=$!
gid=$($MCAST id) || fail "no events group"
$MCAST listen "$gid" 3600 >/tmp/listen.out 2>&1 &
lpid=$!
sleep 2

# unload: retry while a dump in flight holds the module for a moment.
unload() {
	local i

	for i in $(seq 50); do
		modprobe -r hvtrace 2>/dev/null && return 0
		sleep 0.1
	done
	modprobe -r hvtrace || fail "unload $1 failed"
}

recorded=0
for i in $(seq "$cycles"); do
	if [ $((i % 2)) = 1 ]; then
		modprobe hvtrace autostart=1 buffer_kb=16 || fail "load $i (autostart) failed"
	else
		modprobe hvtrace || fail "load $i failed"
	fi
	rec= way=
	if [ $((i % 5)) = 0 ]; then
		way=device
		if [ $((i % 10)) = 0 ]; then
			way=netlink
			mv /dev/hvtrace /dev/hvtrace.away
		fi
		"$HVCTL" record -q -o "/tmp/cycle.$i" --threshold 0 --duration 60s \
			>/tmp/cycle.out 2>&1 &
		rec=$!
		wait_recording
		sleep 1
	fi
	if [ "$way" = device ]; then
		modprobe -r hvtrace 2>/tmp/unload.err &&
			fail "unload $i accepted while hvctl record maps the rings"
		grep -q "in use" /tmp/unload.err ||
			fail "unload $i refused, but not as in use: $(cat /tmp/unload.err)"
		kill -INT "$rec"
		wait "$rec" || fail "record $i: $(cat /tmp/cycle.out)"
		n=$("$HVCTL" dump "/tmp/cycle.$i" | wc -l)
		[ "$n" -gt 0 ] || fail "record $i: an empty trace"
		unload "$i"
		recorded=$((recorded + 1))
		echo "  cycle $i: unload refused while hvctl record held the rings ($(head -n 1 /tmp/unload.err)); stopped with $n events, then unloaded"
		continue
	fi
	t0=$(date +%s.%N)
	unload "$i"
	t1=$(date +%s.%N)
	# The node renamed away outlives the device: not ours to keep.
	[ "$way" = netlink ] && rm -f /dev/hvtrace.away
	if [ -n "$rec" ]; then
		# The module went from under the recorder: it must notice.
		for _ in $(seq 100); do
			kill -0 "$rec" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$rec" 2>/dev/null && fail "record hangs after unload $i"
		wait "$rec"
		recorded=$((recorded + 1))
		echo "  cycle $i (through netlink): unload $(echo "$t1 - $t0" | bc)s, recorder gone $(echo "$(date +%s.%N) - $t1" | bc)s later"
	fi
done
modprobe hvtrace || fail "final load failed"
sleep 1
seen=$("$HVCTL" -j status | py 'd["exits_seen"]')
kill -INT $gpid
wait $gpid || fail "guest failed: $(cat /tmp/guest.out)"
kill $lpid 2>/dev/null
wait $lpid 2>/dev/null
[ "${seen:-0}" -gt 0 ] || fail "no exits seen after reload"
echo "  $cycles load/unload cycles under load ($recorded with a recorder draining);" \
	"$seen exits seen after the last"
