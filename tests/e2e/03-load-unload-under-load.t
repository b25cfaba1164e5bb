# Unload and reload hvtrace while a guest exits at full rate: no warning
# (the harness scans the log), and the module counts exits when loaded.
. "$(dirname "$0")/lib.sh"

cycles=${HVT_CYCLES:-100}
"$HVGUEST" --forever --pio 1000 --cpuid 1000 >/tmp/guest.out 2>&1 &
gpid=$!
sleep 2
for i in $(seq "$cycles"); do
	modprobe -r hvtrace || fail "unload $i failed"
	modprobe hvtrace || fail "load $i failed"
done
sleep 1
seen=$("$HVCTL" -j status | sed -n 's/.*"exits_seen":\([0-9]*\).*/\1/p')
kill -INT $gpid
wait $gpid || fail "guest failed: $(cat /tmp/guest.out)"
[ "${seen:-0}" -gt 0 ] || fail "no exits seen after reload"
echo "  $cycles load/unload cycles under load; $seen exits seen after the last"
