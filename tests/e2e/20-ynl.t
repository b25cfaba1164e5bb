# The netlink spec docs/hvtrace.yaml drives the module through the kernel's
# own YNL CLI (tools/net/ynl/cli.py of linux-source-6.12, unpacked on the
# host by tests/ynl-prepare): what it reads and writes agrees with hvctl,
# a value the kernel's policy refuses is refused and changes nothing, the
# dumps of ABI 3 (per-CPU status, configuration in parts, histograms in
# batches) hold what the replies hold, and every dump decodes under the
# spec, also with 4000-byte receive buffers (--dbg-small-recv).
. "$(dirname "$0")/lib.sh"

cache=${HVT_CACHE:-${XDG_CACHE_HOME:-/var/cache}/hvtrace}
src=$cache/src/linux-source-6.12
YNL_DIR=${HVT_YNL_DIR:-$src/tools/net/ynl}
SCHEMA=$src/Documentation/netlink/genetlink-legacy.yaml
SPEC=$HVT_ROOT/docs/hvtrace.yaml

[ -f "$YNL_DIR/cli.py" ] && [ -f "$SCHEMA" ] ||
	fail "no YNL tree in $src: run tests/ynl-prepare on the host first"
"$PYTHON" -c 'import yaml, jsonschema' 2>/dev/null ||
	fail "python3 lacks yaml or jsonschema (apt-get install python3-yaml python3-jsonschema)"
[ -f "$SPEC" ] || fail "no $SPEC"
# YNL's library, imported once into the warm interpreter (tests/pyfork)
# rather than at each of the thirty starts below.
preload "$YNL_DIR" lib || fail "cannot import YNL's library from $YNL_DIR"

# ynl ARGS...: cli.py with the spec, JSON out. The first call validates
# the spec against the kernel's schema; the rest skip that (slow in a VM).
# The spec is read with python3-yaml's C loader (libyaml): the same
# documents as the pure-Python safe_load that cli.py calls, in a tenth
# of the parsing time (cli.py starts in half the time), which under
# emulation is seconds a call.
schema=(--schema "$SCHEMA")
ynl() {
	PYTHONDONTWRITEBYTECODE=1 timeout 120 "$PYTHON" "$HVT_ROOT/tests/e2e/ynl_run.py" \
		"$YNL_DIR/cli.py" --spec "$SPEC" "${schema[@]}" --output-json "$@"
}

# vals DOC EXPR...: each EXPR evaluated with d = the JSON document DOC,
# one per line (Python starts slowly in the VM: one start per document),
# with tests/e2e/ynl_vals.py's helpers: cat(msgs), the config nests of a
# get-config dump concatenated; reasons(msgs), a get-stats dump's reasons
# merged with their histograms' continuations; pcts(head, buckets), the
# percentiles hvctl computes.
vals() {
	local doc=$1

	shift
	echo "$doc" | "$PYTHON" "$HVT_ROOT/tests/e2e/ynl_vals.py" "$@" ||
		fail "cannot read $doc"
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
mapfile -t h <<<"$(vals "$hst" "d['version']" "d['abi']" "d['nr_cpus']" \
	"d['cpus_traced']" "[c['cpu'] for c in d['accounting']['cpus']]")"
mapfile -t y <<<"$(vals "$out" "d[0]['version']" "d[0]['abi']" "d[0]['nr-cpus']" \
	"d[0]['cpus-traced']" "'cpu-nest' in d[0]['acct'] or 'cpu' in d[0]['acct']" \
	"d[1]" "'%s %s' % (d[2]['config']['threshold-ns'], d[2]['config']['mode'])")"
expect_eq "version (ynl vs hvctl)" "${h[0]}" "${y[0]}"
expect_eq "abi (ynl vs hvctl)" "${h[1]}" "${y[1]}"
expect_eq "abi" 4 "${y[1]}"
expect_eq "nr-cpus (ynl vs hvctl)" "${h[2]}" "${y[2]}"
expect_eq "cpus-traced (ynl vs hvctl)" "${h[3]}" "${y[3]}"
expect_eq "get-status reply: totals only" False "${y[4]}"
expect_eq "set-config reply" None "${y[5]}"
expect_eq "get-config threshold-ns, mode" "123456 overwrite" "${y[6]}"

# The per-CPU accounting: the get-status dump, one message per traced CPU,
# whose rows add up to the reply's totals (nothing runs: they hold still).
tot=$(vals "$out" "json.dumps(d[0]['acct'])")
pc=$(ynl --dump get-status) || fail "ynl --dump get-status failed: $pc"
mapfile -t y <<<"$(vals "$pc" "len(d)" "[m['acct']['cpu'] for m in d]" \
	"[m for m in d if list(m) != ['acct']]" \
	"acct_unbalanced(d)" \
	"sorted(k for k, v in json.loads('$tot').items() if v != sum(m['acct'][k] for m in d))")"
expect_eq "get-status dump messages = cpus-traced" "${h[3]}" "${y[0]}"
expect_eq "get-status dump CPUs (ynl vs hvctl)" "${h[4]}" "${y[1]}"
expect_eq "get-status dump: an acct nest per message" "[]" "${y[2]}"
expect_eq "acct identity per CPU (dump)" "[]" "${y[3]}"
expect_eq "counters where the CPUs do not add up to the totals" "[]" "${y[4]}"
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
cd_=$(ynl --dump get-config) || fail "ynl --dump get-config failed: $cd_"
mapfile -t c <<<"$(config)"
expect_eq "threshold_ns restored" 0 "${c[0]}"
expect_eq "mode restored" discard "${c[1]}"
expect_eq "vcpu filter" "[0, 2]" "${c[3]}"
expect_eq "reason filter" "['IOIO', 'IO_INSTRUCTION']" "${c[4]}"
expect_eq "reason threshold" "[('NPF', 5000)]" "${c[5]}"
mapfile -t y <<<"$(vals "$cd_" "cat(d)['filter-vcpus'][:1]" \
	"sorted((r['isa'], r['code']) for r in cat(d)['filter-reasons']['reason'])" \
	"[(r['isa'], r['code'], r['threshold-ns']) for r in cat(d)['reason-threshold']]" \
	"len(d)")"
expect_eq "get-config dump filter-vcpus" "[5]" "${y[0]}"
expect_eq "get-config dump filter-reasons" "[('svm', 123), ('vmx', 30)]" "${y[1]}"
expect_eq "get-config dump reason-threshold" "[('svm', 1024, 5000)]" "${y[2]}"
expect_eq "get-config dump parts: settings, thresholds, filter" 3 "${y[3]}"
expect_eq "get-config dump, concatenated = reply" True \
	"$(vals "[$out, $cd_]" "cat(d[1]) == d[0][2]['config']")"

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
	"runnable True 777" "$(split)"
out=$(ynl --do set-config --json '{"config": {"threshold-on": 6, "preempt-threshold-ns": 5}}' 2>&1) &&
	fail "ynl set-config threshold-on 6 succeeded"
echo "$out" | grep -q "\.config\.threshold-on" ||
	fail "the error does not point at config.threshold-on: $out"
expect_eq "after the refused threshold-on 6" "runnable True 777" "$(split)"
reset_config

# The largest configuration SET_CONFIG takes, in one request: a threshold
# for every reason code the module has a slot for (VMX basic reasons, SVM
# codes, NPF and the rest from 0x400, SVM_EXIT_ERR) and a reason filter of
# the same; the dump brings them in batches, the reply whole, hvctl (which
# reads the dump) all.
big=$("$PYTHON" "$HVT_ROOT/tests/e2e/ynl_all_reasons.py")
out=$(ynl --do set-config --json "$big" 2>&1) || fail "ynl set-config of every reason: $out"
hc=$("$HVCTL" -j config) || fail "hvctl -j config failed"
mapfile -t h <<<"$(vals "$hc" "len(d['reason_thresholds'])" "len(d['filters']['reasons'])")"
cd_=$(ynl --dump get-config) || fail "ynl --dump get-config failed: $cd_"
one=$(ynl --do get-config) || fail "ynl --do get-config failed: $one"
mapfile -t y <<<"$(vals "[$one, $cd_]" "len(cat(d[1])['reason-threshold'])" \
	"len(cat(d[1])['filter-reasons']['reason'])" "len(d[1])" \
	"cat(d[1]) == d[0]['config']" \
	"sorted({r['threshold-ns'] for r in cat(d[1])['reason-threshold']})")"
echo "  get-config dump: ${y[2]} messages"
expect_eq "reason thresholds (hvctl)" 417 "${h[0]}"
expect_eq "reason thresholds (ynl dump)" 417 "${y[0]}"
expect_eq "reason filter entries (hvctl)" 417 "${h[1]}"
expect_eq "reason filter entries (ynl dump)" 417 "${y[1]}"
[ "${y[2]}" -gt 3 ] || fail "get-config dump in ${y[2]} messages: no batches"
expect_eq "get-config dump, concatenated = reply" True "${y[3]}"
expect_eq "every threshold" "[3000]" "${y[4]}"

# Every dump with 4000-byte receive buffers: each message fits (cli.py
# says what each recv read), and it decodes to what the 128 KiB buffers
# give. The configuration's batches are in force for get-config.
# small OP: the dump with small buffers, checked; prints the decoded JSON.
small() {
	local d

	d=$(ynl --dump "$1" --dbg-small-recv 2>/tmp/ynl-small.err) ||
		fail "ynl --dump $1 --dbg-small-recv failed: $d $(tail -n 3 /tmp/ynl-small.err)"
	read -r reads big <<<"$(sed -n 's/^Recv: read \([0-9]*\) bytes.*/\1/p' /tmp/ynl-small.err |
		sort -n | awk '{ n++; m = $1 } END { print n, m }')"
	[ "${reads:-0}" -gt 0 ] || fail "$1: no receive reported by --dbg-small-recv"
	[ "$big" -le 4000 ] || fail "$1: a receive of $big bytes with 4000-byte buffers"
	echo "  $1 --dbg-small-recv: $reads receives, at most $big bytes" >&2
	echo "$d"
}
expect_eq "get-config, small buffers = large" True \
	"$(vals "[$(small get-config), $cd_]" "d[0] == d[1]")"
reset_config
expect_eq "get-status dump, small buffers = large" True \
	"$(vals "[$(small get-status), $pc]" "d[0] == d[1]")"

# The aggregates: seconds of port writes on two vCPUs spread IOIO over
# more buckets than a message holds (128), so its histogram goes on in
# further messages. Merged, every reason's histogram counts its exits, and
# hvctl's percentiles are those of the merged histogram, exactly.
hv clear
if [ -x "$HVGUEST" ]; then
	guest --vcpus 2 --seconds 4 --pio 200 --slow 2:300 >/dev/null || exit 1
fi
stats=$(ynl --dump get-stats) || fail "ynl --dump get-stats failed: $stats"
hs=$("$HVCTL" -j stat) || fail "hvctl -j stat failed"
mapfile -t y <<<"$(vals "[$stats, $hs]" \
	"'%d reasons, %d vcpus (%d gone)' % (len(reasons(d[0])), sum('vcpu' in m for m in d[0]), sum(m.get('vcpu', {}).get('gone', 0) for m in d[0]))" \
	"sum('reason' in m and 'count' not in m['reason'] for m in d[0])" \
	"miscounted(d[0])" "continued_by_another(d[0])" \
	"odd_continuations(d[0])" "pcts_unlike(d[0], d[1])")"
echo "  get-stats: ${y[0]}, ${y[1]} histogram continuations"
if [ -x "$HVGUEST" ]; then
	[ "${y[1]}" -gt 0 ] ||
		fail "no histogram went on in a second message: continuations untested"
fi
expect_eq "reasons whose merged histogram does not count their exits" "[]" "${y[2]}"
expect_eq "reasons continued by another reason's histogram" "[]" "${y[3]}"
expect_eq "continuations with more than isa, code, hist" "[]" "${y[4]}"
expect_eq "hvctl percentiles unlike the merged histogram's" "[]" "${y[5]}"
expect_eq "get-stats, small buffers = large" True \
	"$(vals "[$(small get-stats), $stats]" "d[0] == d[1]")"

# The events of a short recording.
if [ -x "$HVGUEST" ]; then
	hv clear
	hv start
	guest --pio 1000:0x80 --slow 20:200 --cpuid 500 >/dev/null || exit 1
	hv stop
fi
ev=$(small read-events)
mapfile -t y <<<"$(vals "$ev" \
	"malformed_events(d)" "n_events(d)" "event_types(d)")"
expect_eq "read-events messages well formed" "[]" "${y[0]}"
expect_eq "events drained by ynl = recorded" "$(acct recorded)" "${y[1]}"
if [ -x "$HVGUEST" ]; then
	[ "${y[1]}" -ge 1520 ] || fail "only ${y[1]} events for 1520 port writes"
	expect_eq "every event's type is exit" "[1]" "${y[2]}"
fi

reset_config
