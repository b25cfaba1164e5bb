# SPDX-License-Identifier: GPL-2.0
# Helpers for the e2e tests. They run inside the test VM (tests/vm/run) or,
# with `make check-host`, on a real KVM host.

HVT_ROOT=${HVT_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
HVCTL=$HVT_ROOT/build/bin/hvctl
HVGUEST=$HVT_ROOT/tests/guest/hvguest
# Python: a fork of tests/e2e/suite's warm interpreter (tests/pyfork: the
# same program as python3, descriptors, environment and status), or,
# without pyfork, Debian's python3 (tests/deps installs its modules).
PYFORK=$HVT_ROOT/build/pyfork/pyfork
if [ -x "$PYFORK" ]; then
	PYTHON=$PYFORK
elif [ -x /usr/bin/python3 ]; then
	PYTHON=/usr/bin/python3
else
	PYTHON=python3
fi

# preload DIR MODULE: import MODULE from DIR into pyfork's server, once
# for the programs that follow; nothing without one.
preload() {
	[ "$PYTHON" = "$PYFORK" ] || return 0
	"$PYFORK" --preload "$@"
}

# The kernel under test: stock (Debian's 6.1 or 6.12), rt (Debian's
# PREEMPT_RT 6.12) or debug (tests/debug-kernel: KASAN, lockdep, ...,
# several times slower). Tests that repeat a round many times do fewer of
# them where a round costs more; what each round checks is the same.
case "$(uname -r)" in
*-hvtdebug-*)	HVT_KERNEL_KIND=debug ;;
*-rt-*)		HVT_KERNEL_KIND=rt ;;
*)		HVT_KERNEL_KIND=stock ;;
esac

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# skip REASON: this kernel cannot run the test at all (exit 77); the
# suite shows "ok N - NAME # SKIP REASON", counted as neither passed nor
# failed. Only for what the kernel lacks, a test too slow for make
# check that a make target of its own runs, or a kernel under which the
# test's environment cannot start (72: a nested Linux boot under the
# debug kernel's KVM, or every nested boot hung, as it does as often
# without hvtrace); never for a flaky result of hvtrace's.
skip() {
	echo "$*" >"${HVT_SKIP_FILE:-/dev/null}"
	exit 77
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "  $1 = $3"
}

# field KEY LINE: value of KEY=value in a HVGUEST line.
field() {
	local kv

	for kv in $2; do
		case "$kv" in
		"$1="*) echo "${kv#*=}"; return 0 ;;
		esac
	done
	return 1
}

# guest ARGS...: run hvguest, echo its HVGUEST result line; fail otherwise.
guest() {
	local out rc

	out=$("$HVGUEST" "$@")
	rc=$?
	[ $rc -eq 0 ] || fail "hvguest $* exited $rc: $out"
	echo "$out" | grep '^HVGUEST ' | tail -n 1
}

# guest_beside_hog NAME ARGS...: hvguest ARGS beside a FIFO hog on CPU 1
# (hvhog: priority 50, 3 bursts of 150 ms, 300 ms apart), which starts
# once hvguest's threads exist; prints hvguest's last HVGUEST line. Its
# output is /tmp/NAME-guest.out, the hog's /tmp/NAME-hog.out. Run it as
# r=$(guest_beside_hog ...) || exit 1, as guest.
guest_beside_hog() {
	local name=$1 gpid hpid
	shift
	local go=/tmp/$name-hog.go out=/tmp/$name-guest.out hog=/tmp/$name-hog.out

	rm -f "$go" "$out"
	mkfifo "$go" || fail "mkfifo failed"
	exec 4<>"$go"
	"$HVT_ROOT/tests/guest/hvhog" --cpu 1 --fifo 50 --ms 150 --bursts 3 \
		--gap 300 --start-on "$go" >"$hog" 4>&- &
	hpid=$!
	"$HVGUEST" "$@" >"$out" 2>&1 4>&- &
	gpid=$!
	for _ in $(seq 600); do
		grep -q '^HVGUEST-START' "$out" && break
		sleep 0.1
	done
	grep -q '^HVGUEST-START' "$out" ||
		{ kill $hpid $gpid; fail "hvguest did not start: $(cat "$out")"; }
	echo go >&4
	wait $gpid || { kill $hpid; fail "hvguest failed: $(cat "$out")"; }
	wait $hpid || fail "hvhog failed: $(cat "$hog")"
	exec 4>&-
	rm -f "$go"
	grep -q '^HVHOG done' "$hog" || fail "hvhog: $(cat "$hog")"
	grep '^HVGUEST ' "$out" | tail -n 1
}

# hv ARGS...: hvctl that must succeed.
hv() {
	"$HVCTL" "$@" || fail "hvctl $* failed"
}

# prometheus_start TARGET DIR: a Prometheus server (Debian's), its files
# in DIR, scraping http://TARGET/metrics every second, on a port the
# kernel picks. Returns once it has scraped TARGET, with PROM_PID its
# pid and prom its HOST:PORT.
prometheus_start() {
	local port start=$SECONDS

	command -v prometheus >/dev/null ||
		fail "no prometheus in the VM's root: install Debian's prometheus (tests/deps)"
	port=$("$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	cat >"$2/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: hvtrace
    static_configs:
      - targets: ['$1']
EOF
	prometheus --config.file="$2/prometheus.yml" --storage.tsdb.path="$2/tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn \
		>"$2/prometheus.log" 2>&1 &
	PROM_PID=$!
	prom=127.0.0.1:$port
	"$PYTHON" "$HVT_ROOT/tests/e2e/prom.py" wait "$prom" 'up{job="hvtrace"}' 1 300 ||
		fail "Prometheus did not scrape $1: $(tail -20 "$2/prometheus.log")"
	echo "  Prometheus scraping after $((SECONDS - start))s"
}

# hog_spin HOG_MS SPIN_MS [OPEN_MS]: hvguest spins SPIN_MS in its guest
# on CPU 0 while hvhog, SCHED_FIFO on CPU 0, burns HOG_MS from 300ms after
# the spin began. With OPEN_MS another hvhog, comm hvopen, of a higher
# FIFO priority, takes the CPU first at 300ms and burns OPEN_MS; the hog
# is ready 50ms later and takes over when it ends, so the vCPU waits for
# both in one stretch (HOG_PID, OPEN_PID; its output in /tmp/open.out).
# This shell runs on CPU 1 meanwhile (on the debug kernel its
# forks on CPU 0 took it for 100s of ms, and got the credit). The hog
# waits, ready, until hvguest says its vCPU spins (HVGUEST-SPIN, read as
# it comes): setting a VM up, or starting the hog, can take 1s or more
# there, so a hog started with hvguest, or after HVGUEST-SPIN, could miss
# the spin. Sets GUEST_LINE (hvguest's result) and HOG_PID; the hog's
# output is in /tmp/hog.out.
hog_spin() {
	local cpus hpid gpid opid line spinning= delay=300

	cpus=$(taskset -pc $$ | sed 's/.*: //')
	[ "$(nproc)" -ge 2 ] && taskset -pc 1 $$ >/dev/null
	rm -f /tmp/spin.fifo /tmp/hog.go
	mkfifo /tmp/spin.fifo /tmp/hog.go || fail "mkfifo failed"
	exec 4<>/tmp/hog.go
	if [ -n "${3-}" ]; then
		"$HVT_ROOT/tests/guest/hvhog" --cpu 0 --fifo 20 --ms "$3" \
			--comm hvopen --start-on /tmp/hog.go --start-delay 300 \
			>/tmp/open.out 4>&- &
		opid=$!
		delay=350
	fi
	"$HVT_ROOT/tests/guest/hvhog" --cpu 0 --fifo 10 --ms "$1" \
		--start-on /tmp/hog.go --start-delay $delay >/tmp/hog.out 4>&- &
	hpid=$!
	"$HVGUEST" --cpu 0 --spin "$2" >/tmp/spin.fifo 2>&1 4>&- &
	gpid=$!
	exec 3</tmp/spin.fifo
	: >/tmp/spin.out
	while IFS= read -r -t 60 line <&3; do
		echo "$line" >>/tmp/spin.out
		[[ $line == HVGUEST-SPIN* ]] && spinning=1 && break
	done
	if [ -z "$spinning" ]; then
		kill "$hpid" $opid
		fail "hvguest did not spin in 60 s: $(cat /tmp/spin.out)"
	fi
	echo go >&4
	while IFS= read -r line <&3; do
		echo "$line" >>/tmp/spin.out
	done
	exec 3<&-
	wait "$gpid" || fail "hvguest --spin failed: $(cat /tmp/spin.out)"
	wait "$hpid" || fail "hvhog failed: $(cat /tmp/hog.out)"
	[ -z "$opid" ] || wait "$opid" || fail "hvhog --comm hvopen failed: $(cat /tmp/open.out)"
	exec 4>&-
	rm -f /tmp/spin.fifo /tmp/hog.go
	# Anywhere again (pyfork serves only its server's CPU set).
	taskset -pc "$cpus" $$ >/dev/null
	GUEST_LINE=$(grep '^HVGUEST ' /tmp/spin.out | tail -n 1)
	HOG_PID=$(field pid "$(grep '^HVHOG pid=' /tmp/hog.out)")
	OPEN_PID=
	[ -z "$opid" ] || OPEN_PID=$(field pid "$(grep '^HVHOG pid=' /tmp/open.out)")
}

# py EXPR: evaluate EXPR with d = the JSON document on stdin.
py() {
	"$PYTHON" -c 'import json, sys
d = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$1"
}

# json_vals EXPR...: each EXPR evaluated with d = the JSON document on
# stdin, one a line (tests/e2e/vals.py: several values, one Python start).
json_vals() {
	"$PYTHON" "$HVT_ROOT/tests/e2e/vals.py" "$@"
}

# events_py EXPR: evaluate EXPR with ev = list of events from `hvctl -j
# drain` (or `hvctl dump -j`), entered = its exits that re-entered the
# guest, last = those that did not (a vCPU's last exit, ended by its
# destruction). For lists of events' values; checks and counts are
# events_check's.
events_py() {
	"$PYTHON" -c 'import json, sys
ev = [json.loads(l) for l in sys.stdin if l.strip()]
entered = [e for e in ev if e["type"] == "exit" and not e.get("no_entry")]
last = [e for e in ev if e["type"] == "exit" and e.get("no_entry")]
print(eval(sys.argv[1]))' "$1"
}

# events_check CLAUSE [--and CLAUSE]...: tests/e2e/check.py over the
# events on stdin, e.g. `events_check every entered "e['vmm_ns'] > 0"`:
# True or False for a check (and on stderr, when false, the first event
# that broke it), a number for a query (count, sum).
events_check() {
	"$PYTHON" "$HVT_ROOT/tests/e2e/check.py" "$@"
}

# doc_check CLAUSE [--and CLAUSE]...: the same over the rows of the JSON
# document on stdin (`hvctl -j stat`, `status`, `config`), a SET being a
# list in it (reasons, vcpus, accounting.cpus), e.g. `doc_check every
# reasons "e['count'] > 0"`; when false it names the row that broke it.
doc_check() {
	"$PYTHON" "$HVT_ROOT/tests/e2e/check.py" --doc "$@"
}

# A predicate for `events_check every last`: the exit is a last exit of
# hvguest (its OUT to the done port), as every exit that never re-entered
# must be.
LAST_EXIT_DONE="e['reason'] == 'IOIO' and e['info1'] >> 16 == 0x3f0"

# Reset: recording off, default configuration, nothing buffered.
reset_config() {
	hv stop
	# Records a test left: a buffer change refuses to throw them away.
	hv clear
	hv filter clear
	hv set-threshold 0 --clear-reasons --exclude-halt
	# No preemption records unless a test asks: counts stay exits only.
	hv set-threshold 3600s --preemptions
	# Nor late interrupt records (the module's default).
	hv set-threshold off --interrupts
	hv buffer --size 2560 --mode discard
	hv clear
}

# The accounting identity, per CPU and in total, exactly.
check_accounting() {
	local bad

	bad=$("$HVCTL" -j status | py '[c for c in d["accounting"]["cpus"] + [d["accounting"]["total"]] if c["seen"] != c["filtered"] + c["below_threshold"] + c["recorded"] + c["lost"] or c["mark_seen"] != c["mark_filtered"] + c["mark_limited"] + c["mark_recorded"] + c["mark_lost"] or c["irq_seen"] != c["irq_filtered"] + c["irq_below_threshold"] + c["irq_recorded"] + c["irq_lost"]]')
	[ "$bad" = "[]" ] || fail "accounting identity broken: $bad"
	echo "  accounting: seen = filtered + below_threshold + recorded + lost on every CPU, marks' and late interrupts' too"
}

# acct FIELD: a total accounting counter.
acct() {
	"$HVCTL" -j status | py "d['accounting']['total']['$1']"
}

# wait_recording: until the module records and a recorder drains it
# (hvctl record started up: it owns the buffers).
wait_recording() {
	local i

	for i in $(seq 100); do
		"$HVCTL" -j status | py '(d["recording"], d["reader"])' |
			grep -qx "('on', 'draining')" && return 0
		sleep 0.1
	done
	fail "recording did not start"
}

# wait_armed PID LOG [HVCTL]: until hvctl -j status says a watch is
# armed; fails with LOG if PID (the hvctl watch) ends first, or after 10 s.
wait_armed() {
	local hvctl=${3:-$HVCTL}

	for _ in $(seq 100); do
		[ "$("$hvctl" -j status | py "d['watch']['armed']")" = True ] &&
			return 0
		kill -0 "$1" 2>/dev/null || fail "hvctl watch ended: $(cat "$2")"
		sleep 0.1
	done
	fail "hvctl watch did not arm: $(cat "$2")"
}

# parts_add_up EVENTS: every exit's parts add up to its duration.
parts_add_up() {
	local bad

	bad=$(echo "$1" | events_py '[e for e in ev if e["type"] == "exit" and (e["handling_ns"] + e["vmm_ns"] + e["halt_ns"] + e["runnable_ns"] + e["other_ns"] != e["duration_ns"] or min(e["handling_ns"], e["vmm_ns"], e["halt_ns"], e["runnable_ns"], e["other_ns"]) < 0)][:3]')
	[ "$bad" = "[]" ] || fail "parts do not add up: $bad"
	echo "  parts add up to the duration, for every exit"
}

# The kernel's own count of exits, per exit reason code: a hist trigger on
# kvm:kvm_exit. ftrace_exits_start, run the workload, then
# ftrace_exits_stop prints "CODE COUNT" lines, sorted by code.
TRACEFS=/sys/kernel/tracing
ftrace_exits_start() {
	mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" ||
		fail "cannot mount tracefs"
	echo 'hist:keys=exit_reason:vals=hitcount:size=2048' \
		> "$TRACEFS/events/kvm/kvm_exit/trigger" ||
		fail "cannot set a hist trigger on kvm_exit"
}

ftrace_exits_stop() {
	local hist

	hist=$(cat "$TRACEFS/events/kvm/kvm_exit/hist")
	echo '!hist:keys=exit_reason:vals=hitcount:size=2048' \
		> "$TRACEFS/events/kvm/kvm_exit/trigger"
	sed -n 's/^ *Dropped: *\([0-9]*\)$/\1/p' <<<"$hist" >/tmp/ftrace-exits.dropped
	sed -n 's/^{ exit_reason: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1 \2/p' \
		<<<"$hist" | sort -n
}

# expect_exits_as_ftrace WHAT KERNEL: hvtrace's exits per reason code are
# what ftrace_exits_stop printed. ftrace's hist map drops a hit when a
# CPU finds a new key half inserted by another for too long (tracing_map
# .c, __tracing_map_insert: seen under emulation on a loaded host, the
# first NPF of two vCPUs at once), and says so (Dropped:). Then hvtrace
# must have exactly the dropped hits more, and no reason fewer.
expect_exits_as_ftrace() {
	local what=$1 kernel=$2 mine dropped c n extra=0
	local -A k m

	mine=$(hvtrace_exits)
	dropped=$(cat /tmp/ftrace-exits.dropped)
	[ -n "$dropped" ] || fail "$what: no Dropped: line in ftrace's hist"
	if [ "$dropped" = 0 ]; then
		expect_eq "$what" "$(echo $kernel)" "$(echo $mine)"
		return
	fi
	while read -r c n; do k[$c]=$n; done <<<"$kernel"
	while read -r c n; do m[$c]=$n; done <<<"$mine"
	for c in "${!k[@]}"; do
		[ "${m[$c]:-0}" -ge "${k[$c]}" ] ||
			fail "$what: reason $c: hvtrace ${m[$c]:-0} < ftrace ${k[$c]}"
	done
	for c in "${!m[@]}"; do
		extra=$((extra + m[$c] - ${k[$c]:-0}))
	done
	[ "$extra" = "$dropped" ] ||
		fail "$what: hvtrace $(echo $mine), ftrace $(echo $kernel) with $dropped hits dropped"
	echo "  $what: ftrace dropped $dropped hits (its map), hvtrace has exactly those more: $(echo $mine)"
}

# hvtrace's count of exits per reason code, "CODE COUNT" sorted by code.
hvtrace_exits() {
	"$HVCTL" -j stat | py "'\n'.join('%d %d' % (r['code'], r['count']) for r in sorted(d['reasons'], key=lambda r: r.get('code', -1)) if 'code' in r)"
}
