# The three units under a real systemd (the VM booted by tests/vm/run
# --systemd: make check's vm-6.12-systemd), installed as the hvtrace
# package installs them: hvtrace.service loads the module (the harness's
# hvtrace.ko, unloaded first, through the modules.dep the host indexed:
# its modprobe runs under the unit's SystemCallFilter and capabilities)
# and applies the conffile, and applies it again on reload; the exporter
# serves /metrics as a user of its own with CAP_PERFMON alone; the watch
# writes a capture of a slow exit under its StateDirectory; each runs
# under its seccomp filter, stops cleanly (exit status 0, no restart, the
# watch disarmed) and its journal holds no EPERM. hvtrace.service's
# stop leaves the module and its configuration. 76-deb-install runs the
# same commands with setpriv, without systemd's sandboxing.
. "$(dirname "$0")/lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] ||
	skip "needs systemd as PID 1: tests/vm/run --systemd (make check's vm-6.12-systemd)"

SRC=$HVT_ROOT/systemd
UNITS=/lib/systemd/system
CONF=/etc/hvtrace/hvtrace.conf
CAPS=/var/lib/hvtrace/captures
ALL=(hvtrace-watch.service hvtrace-exporter.service hvtrace.service)

# show UNIT PROPERTY...: systemctl show's values, one a line, in the
# order asked (one show of several prints them in its own).
show() {
	local u=$1 p

	shift
	for p in "$@"; do
		systemctl show -p "$p" --value "$u"
	done
}

# status_of PID KEY: a field of /proc/PID/status.
status_of() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" | tr '\t' ' '
}

# stopped UNIT EXIT: systemctl stop ends UNIT, which had not restarted,
# inactive, and what PID 1 logged of this run of it (its invocation ID;
# the exit at debug level) is EXIT (a main process's "Main process
# exited, ..."; "" for none), then "Deactivated successfully.", nothing
# else. Not systemctl show after the stop: an inactive unit nothing
# refers to is unloaded, and loaded again with a new unit's values.
stopped() {
	local u=$1 id level want

	id=$(show "$u" InvocationID)
	expect_eq "$u: restarts before the stop" 0 "$(show "$u" NRestarts)"
	level=$(systemctl log-level)
	systemctl log-level debug
	systemctl stop "$u" || fail "systemctl stop $u failed"
	systemctl log-level "$level"
	expect_eq "$u stopped" inactive "$(show "$u" ActiveState)"
	journalctl --sync
	want="${2:+$u: $2
}$u: Deactivated successfully."
	expect_eq "$u: its exit and end, as PID 1 logged them" "$want" \
		"$(journalctl -o cat --no-pager _PID=1 INVOCATION_ID="$id" |
		   grep -E "^$u: (Main process exited|Deactivated|Failed|.*(status|code)=)")"
}

cleanup() {
	systemctl stop "${ALL[@]}" 2>/dev/null
	rm -f /usr/sbin/hvctl "$UNITS"/hvtrace*.service
	rm -rf /etc/hvtrace /var/lib/hvtrace
	systemctl daemon-reload
	# The harness's hvtrace, for the tests after this one.
	[ -d /sys/module/hvtrace ] || modprobe hvtrace ||
		echo "FAIL: hvtrace does not load again" >&2
}

# The VM's root has none (the host image's); a host with the package
# installed would lose it to the cleanup.
for f in /usr/sbin/hvctl "$UNITS"/hvtrace*.service /etc/hvtrace; do
	[ -e "$f" ] && fail "$f exists: this test installs hvtrace and removes it after"
done
trap cleanup EXIT

# ---- install, as debian/hvtrace.install does -----------------------------

expect_eq "the units' hvctl" /usr/sbin/hvctl \
	"$(sed -n 's/^Exec[A-Za-z]*=\([^ ]*hvctl\) .*/\1/p' "$SRC"/*.service | sort -u)"
install -m 0755 "$HVCTL" /usr/sbin/hvctl || fail "install hvctl"
install -m 0644 "$SRC"/*.service "$UNITS"/ || fail "install the units"
install -d /etc/hvtrace || fail "mkdir /etc/hvtrace"
# The shipped file (every setting commented out) and an administrator's.
{
	cat "$HVT_ROOT/etc/hvtrace.conf"
	cat <<'EOF'
# 77-systemd-units
threshold 50us
threshold.preemptions 1ms
filter.vcpu 0-3
buffer.size 4M
watch.exit 20ms
EOF
} >"$CONF"
chmod 0644 "$CONF"
systemctl daemon-reload || fail "daemon-reload"
expect_eq "the units loaded, stopped" \
	"loaded inactive loaded inactive loaded inactive" \
	"$(for u in "${ALL[@]}"; do show "$u" LoadState ActiveState; done | paste -sd' ')"

modprobe -r hvtrace || fail "cannot unload the harness's hvtrace"

# ---- hvtrace.service: modprobe, apply; reload applies again --------------

echo "# hvtrace.service"
systemctl start hvtrace.service || fail "start hvtrace.service: $(journalctl -u hvtrace.service -o cat --no-pager | tail -n 20)"
expect_eq "hvtrace.service: state, result" "active success" \
	"$(show hvtrace.service ActiveState Result | paste -sd' ')"
expect_eq "the module it loaded" live "$(cat /sys/module/hvtrace/initstate)"
want=$(cat <<'EOF'
# hvtrace.conf(5): the module's configuration, from 'hvctl config --save'
threshold 50us
threshold.on total
threshold.halt exclude
threshold.preemptions 1ms
threshold.interrupts off
filter.pid any
filter.vcpu 0-3
filter.cpu any
filter.reason any
filter.rip any
buffer.size 4M
buffer.mode discard
EOF
)
expect_eq "applied: config --save" "$want" "$("$HVCTL" config --save)"
sed -i 's/^threshold 50us$/threshold 80us/' "$CONF"
systemctl reload hvtrace.service || fail "reload hvtrace.service"
expect_eq "reloaded: config --save" "${want/threshold 50us/threshold 80us}" \
	"$("$HVCTL" config --save)"
sed -i 's/^threshold 80us$/threshold 50us/' "$CONF"
systemctl reload hvtrace.service || fail "reload hvtrace.service"

# ---- the exporter: its own user, CAP_PERFMON, seccomp --------------------

echo "# hvtrace-exporter.service"
systemctl start hvtrace-exporter.service || fail "start the exporter"
code=
for _ in $(seq 100); do
	code=$(curl -s -o /tmp/77-metrics -w '%{http_code}' \
		http://127.0.0.1:9655/metrics)
	[ "$code" = 200 ] && break
	[ "$(show hvtrace-exporter.service ActiveState)" = active ] ||
		fail "the exporter ended: $(journalctl -u hvtrace-exporter.service -o cat --no-pager | tail -n 20)"
	sleep 0.2
done
expect_eq "GET /metrics" 200 "$code"
expect_eq "hvtrace_build_info samples, hvtrace_up" "1 1" \
	"$(grep -c '^hvtrace_build_info{' /tmp/77-metrics) $(sed -n 's/^hvtrace_up //p' /tmp/77-metrics)"
pid=$(show hvtrace-exporter.service MainPID)
uid=$(status_of "$pid" Uid | cut -d' ' -f1)
expect_eq "the exporter's uid: DynamicUser's range" yes \
	"$([ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ] && echo yes || echo "no: $uid")"
# CAP_PERFMON is bit 38.
expect_eq "the exporter: CapEff, CapBnd, NoNewPrivs, Seccomp (filter)" \
	"0000004000000000 0000004000000000 1 2" \
	"$(for k in CapEff CapBnd NoNewPrivs Seccomp; do status_of "$pid" $k; done | paste -sd' ')"

# ---- the watch: a capture under its StateDirectory ------------------------

echo "# hvtrace-watch.service"
systemctl start hvtrace-watch.service || fail "start the watch"
armed=
for _ in $(seq 100); do
	armed=$("$HVCTL" -j status | py "d['watch']['armed']")
	[ "$armed" = True ] && break
	[ "$(show hvtrace-watch.service ActiveState)" = active ] ||
		fail "the watch ended: $(journalctl -u hvtrace-watch.service -o cat --no-pager | tail -n 20)"
	sleep 0.1
done
expect_eq "the watch armed" True "$armed"
pid=$(show hvtrace-watch.service MainPID)
# CAP_SYS_ADMIN is bit 21.
expect_eq "the watch: CapEff, CapBnd, NoNewPrivs, Seccomp (filter)" \
	"0000000000200000 0000000000200000 1 2" \
	"$(for k in CapEff CapBnd NoNewPrivs Seccomp; do status_of "$pid" $k; done | paste -sd' ')"
r=$(guest --pio 40 --slow 1:30000) || exit 1
rip_slow=$(field rip_slow "$r")
for _ in $(seq 100); do
	[ -n "$(find "$CAPS" -mindepth 1 -maxdepth 1 -name '2*' 2>/dev/null)" ] && break
	sleep 0.1
done
stopped hvtrace-watch.service "Main process exited, code=exited, status=0/SUCCESS (success)"
expect_eq "disarmed" False "$("$HVCTL" -j status | py "d['watch']['armed']")"
# The slow exit's story line names its capture (its stdout: the journal).
journalctl --sync
cap=$(journalctl -u hvtrace-watch.service -o cat --no-pager |
      grep -E '^[0-9:.]+ exit vm [0-9]+ vcpu 0: IOIO [0-9.]+ms .* -> ' |
      sed 's/.* -> //' | while read -r c; do
	n=$("$HVCTL" -j dump "$c" | events_check count ev --where \
		"e['rip'] == $rip_slow and (e['info1'] >> 16) == 0x81 and e['duration_ns'] >= 30000000")
	[ "$n" = 1 ] && echo "$c"
done)
case "$cap" in
"$CAPS"/2*-vm*-vcpu0) echo "  the slow exit's capture: $cap" ;;
*) fail "no capture of the slow exit under $CAPS: '$cap'; $(journalctl -u hvtrace-watch.service -o cat --no-pager | tail -n 20)" ;;
esac
# The shipped file leaves the limits out: bounded all the same.
expect_eq "the watch's captures, at most" "1000 captures and 1G" \
	"$(journalctl -u hvtrace-watch.service -o cat --no-pager |
	   sed -n "s|^watching: .*; captures into $CAPS, at most \(.*\) (^C stops)\$|\1|p" |
	   tail -n 1)"
expect_eq "capture.json: trigger, limit" "exit 20000000" \
	"$(py "'%s %d' % (d['trigger'], d['limit_ns'])" <"$cap/hvtrace/capture.json")"
expect_eq "/var/lib/hvtrace, captures: modes, owner" "700 700 root" \
	"$(stat -c %a /var/lib/hvtrace "$CAPS" | paste -sd' ') $(stat -c %U "$cap")"
expect_eq "capture files not 0600" "" "$(find "$cap" -type f ! -perm 0600)"

# ---- stop: each cleanly; hvtrace.service's leaves the module as it is ----

stopped hvtrace-exporter.service "Main process exited, code=exited, status=0/SUCCESS (success)"
expect_eq "GET /metrics after the stop" 000 \
	"$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9655/metrics)"
stopped hvtrace.service ""
expect_eq "the module stays, its configuration too" "live $want" \
	"$(cat /sys/module/hvtrace/initstate) $("$HVCTL" config --save)"

# ---- the journal: each unit's, no EPERM, no seccomp kill ----------------

journalctl --sync
for u in "${ALL[@]}"; do
	j=$(journalctl -u "$u" -o cat --no-pager)
	expect_eq "$u: journal lines, of them EPERM or seccomp" "yes 0" \
		"$([ -n "$j" ] && echo yes || echo no) $(grep -ciE 'operation not permitted|EPERM|seccomp|SIGSYS|bad system call|core.dump' <<<"$j")"
done
expect_eq "seccomp audit records (type=1326) in the kernel log" 0 \
	"$(dmesg | grep -c 'type=1326')"
