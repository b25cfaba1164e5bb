# The netlink spec docs/hvtrace.yaml drives the module through the kernel's
# own YNL CLI (tools/net/ynl/cli.py of linux-source-6.12, unpacked on the
# host by tests/ynl-prepare): what it reads and writes agrees with hvctl,
# a value the kernel's policy refuses is refused and changes nothing, and
# the replies of every dump decode under the spec.
. "$(dirname "$0")/lib.sh"

cache=${HVT_CACHE:-${XDG_CACHE_HOME:-/var/cache}/hvtrace}
src=$cache/src/linux-source-6.12
YNL_DIR=${HVT_YNL_DIR:-$src/tools/net/ynl}
SCHEMA=$src/Documentation/netlink/genetlink-legacy.yaml
SPEC=$HVT_ROOT/docs/hvtrace.yaml
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

[ -f "$YNL_DIR/cli.py" ] && [ -f "$SCHEMA" ] ||
	fail "no YNL tree in $src: run tests/ynl-prepare on the host first"
"$PY" -c 'import yaml, jsonschema' 2>/dev/null ||
	fail "$PY lacks yaml or jsonschema (apt-get install python3-yaml python3-jsonschema)"
[ -f "$SPEC" ] || fail "no $SPEC"

# ynl ARGS...: cli.py with the spec, JSON out. The first call validates
# the spec against the kernel's schema; the rest skip that (slow in a VM).
schema=(--schema "$SCHEMA")
ynl() {
	PYTHONDONTWRITEBYTECODE=1 timeout 120 "$PY" "$YNL_DIR/cli.py" \
		--spec "$SPEC" "${schema[@]}" --output-json "$@"
}

# vals DOC EXPR...: each EXPR evaluated with d = the JSON document DOC,
# one per line (Python starts slowly in the VM: one start per document).
vals() {
	local doc=$1

	shift
	echo "$doc" | "$PY" -c 'import json, sys
d = json.load(sys.stdin)
for e in sys.argv[1:]:
    print(eval(e))' "$@" || fail "cannot read $doc"
}

# config: `hvctl -j config` (threshold, mode, buffer, vcpus, reasons).
config() {
	local c

	c=$("$HVCTL" -j config) || fail "hvctl -j config failed"
	vals "$c" "d['threshold_ns']" "d['mode']" "d['buffer_kb']" \
		"d['filters']['vcpus']" \
		"sorted(r['reason'] for r in d['filters']['reasons'])" \
		"[(r['reason'], r['threshold_ns']) for r in d['reason_thresholds']]"
}

reset_config

# get-status: the same module as hvctl sees. set-config: seen by hvctl and
# by ynl's get-config. (--multi: several requests per start of ynl, which
# is slow in the VM.)
out=$(ynl --multi get-status '{}' \
	  --multi set-config '{"config": {"threshold-ns": 123456, "mode": "overwrite"}}' \
	  --multi get-config '{}') ||
	fail "ynl get-status, set-config threshold-ns 123456, mode overwrite failed: $out"
schema=(--no-schema)
hst=$("$HVCTL" -j status) || fail "hvctl -j status failed"
mapfile -t h <<<"$(vals "$hst" "d['version']" "d['abi']" "d['nr_cpus']")"
mapfile -t y <<<"$(vals "$out" "d[0]['version']" "d[0]['abi']" "d[0]['nr-cpus']" \
	"len(d[0]['acct']['cpu-nest'])" \
	"[c for c in d[0]['acct']['cpu-nest'] + [d[0]['acct']] if c['seen'] != c['filtered'] + c['below'] + c['recorded'] + c['lost']]" \
	"d[1]" "'%s %s' % (d[2]['config']['threshold-ns'], d[2]['config']['mode'])")"
expect_eq "version (ynl vs hvctl)" "${h[0]}" "${y[0]}"
expect_eq "abi (ynl vs hvctl)" "${h[1]}" "${y[1]}"
expect_eq "nr-cpus (ynl vs hvctl)" "${h[2]}" "${y[2]}"
expect_eq "acct cpu-nests" "${y[2]}" "${y[3]}"
expect_eq "acct identity per CPU and in total" "[]" "${y[4]}"
expect_eq "set-config reply" None "${y[5]}"
expect_eq "get-config threshold-ns, mode" "123456 overwrite" "${y[6]}"
mapfile -t c <<<"$(config)"
expect_eq "threshold_ns after ynl set-config" 123456 "${c[0]}"
expect_eq "mode after ynl set-config" overwrite "${c[1]}"
kb=${c[2]}

# Back to 0 and discard; filters: the nests and bitmaps as hvctl reads them.
out=$(ynl --multi set-config '{"config": {"threshold-ns": 0, "mode": "discard"}}' \
	  --multi set-config '{"config": {"filter-vcpus": "0500000000000000",
	"filter-reasons": {"reason": [{"isa": "svm", "code": 123},
				      {"isa": "vmx", "code": 30}]},
	"reason-threshold": [{"isa": "svm", "code": 1024, "threshold-ns": 5000}]}}' \
	  --multi get-config '{}') ||
	fail "ynl set-config threshold-ns 0, filters failed: $out"
mapfile -t c <<<"$(config)"
expect_eq "threshold_ns restored" 0 "${c[0]}"
expect_eq "mode restored" discard "${c[1]}"
expect_eq "vcpu filter" "[0, 2]" "${c[3]}"
expect_eq "reason filter" "['IOIO', 'IO_INSTRUCTION']" "${c[4]}"
expect_eq "reason threshold" "[('NPF', 5000)]" "${c[5]}"
mapfile -t y <<<"$(vals "$out" "d[2]['config']['filter-vcpus'][:1]" \
	"sorted((r['isa'], r['code']) for r in d[2]['config']['filter-reasons']['reason'])" \
	"[(r['isa'], r['code'], r['threshold-ns']) for r in d[2]['config']['reason-threshold']]")"
expect_eq "get-config filter-vcpus" "[5]" "${y[0]}"
expect_eq "get-config filter-reasons" "[('svm', 123), ('vmx', 30)]" "${y[1]}"
expect_eq "get-config reason-threshold" "[('svm', 1024, 5000)]" "${y[2]}"

# Out of the policy's range: refused, the whole request, nothing changes.
out=$(ynl --do set-config --json '{"config": {"buffer-kb": 1,
	"threshold-ns": 777, "filters-clear": true}}' 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
[ $rc -ne 0 ] || fail "ynl set-config buffer-kb 1 succeeded"
echo "  buffer-kb 1: ynl exit status $rc"
echo "$out" | grep -q "Netlink error: Numerical result out of range" ||
	fail "buffer-kb 1 was not refused with ERANGE"
echo "$out" | grep -q "\.config\.buffer-kb" ||
	fail "the error does not point at config.buffer-kb"
mapfile -t c <<<"$(config)"
expect_eq "buffer_kb after the refused request" "$kb" "${c[2]}"
expect_eq "threshold_ns after the refused request" 0 "${c[0]}"
expect_eq "vcpu filter after the refused request" "[0, 2]" "${c[3]}"

out=$(ynl --do set-config --json '{"config": {"filters-clear": true, "reason-thresholds-clear": true}}') ||
	fail "ynl set-config filters-clear failed: $out"
mapfile -t c <<<"$(config)"
expect_eq "filters after filters-clear" "[] [] []" "${c[3]} ${c[4]} ${c[5]}"

# The time-split settings: by name through ynl, read back by hvctl; a
# part beyond the enum is refused and changes nothing.
out=$(ynl --do set-config --json '{"config": {"threshold-on": "runnable",
	"halt-triggers": 1, "preempt-threshold-ns": 777}}') ||
	fail "ynl set-config threshold-on runnable failed: $out"
split() {
	"$HVCTL" -j config | py "' '.join(str(d[k]) for k in ('threshold_on', 'halt_triggers', 'preempt_threshold_ns'))"
}
expect_eq "threshold_on, halt_triggers, preempt_threshold_ns after ynl" \
	"preempted True 777" "$(split)"
out=$(ynl --do set-config --json '{"config": {"threshold-on": 6, "preempt-threshold-ns": 5}}' 2>&1) &&
	fail "ynl set-config threshold-on 6 succeeded"
echo "$out" | grep -q "\.config\.threshold-on" ||
	fail "the error does not point at config.threshold-on: $out"
expect_eq "after the refused threshold-on 6" "preempted True 777" "$(split)"
reset_config

# Dumps decode: the aggregates, and the events of a short recording.
if [ -x "$HVGUEST" ]; then
	hv clear
	hv start
	guest --pio 50:0x80 >/dev/null || exit 1
	hv stop
fi
stats=$(ynl --dump get-stats) || fail "ynl --dump get-stats failed: $stats"
echo "  get-stats: $(vals "$stats" "'%d reasons, %d vcpus' % (sum('reason' in m for m in d), sum('vcpu' in m for m in d))")"
ev=$(ynl --dump read-events) || fail "ynl --dump read-events failed: $ev"
mapfile -t y <<<"$(vals "$ev" \
	"[m for m in d if 'events-cpu' not in m or 'events-lost' not in m or len(bytes.fromhex(m.get('events', ''))) % 160]" \
	"sum(len(bytes.fromhex(m.get('events', ''))) // 160 for m in d)" \
	"sorted({bytes.fromhex(m['events'])[i + 89] for m in d if m.get('events') for i in range(0, len(bytes.fromhex(m['events'])), 160)})")"
expect_eq "read-events messages well formed" "[]" "${y[0]}"
expect_eq "events drained by ynl = recorded" "$(acct recorded)" "${y[1]}"
if [ -x "$HVGUEST" ]; then
	[ "${y[1]}" -ge 50 ] || fail "only ${y[1]} events for 50 port writes"
	expect_eq "every event's type is exit" "[1]" "${y[2]}"
fi

reset_config
