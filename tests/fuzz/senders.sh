# SPDX-License-Identifier: GPL-2.0
# nlfuzz's senders, for tests/e2e/60-netlink-fuzz.t and tests/fuzz/soak
# (in the test VM, as root, after tests/e2e/lib.sh).

NLFUZZ=$HVT_ROOT/build/fuzz/nlfuzz
NLRECORD=$HVT_ROOT/build/fuzz/nlrecord.so
nlfuzz_total=0

# Each sender: its name, the privileges nlfuzz must find, the wrapper.
#   root     everything may change: the configuration must be what was
#            accepted, setting by setting
#   nobody   uid 65534: refused everywhere, nothing ever changes
#   nocaps   root without CAP_SYS_ADMIN and CAP_PERFMON: the same
#   netns    root in another network namespace: no family (-ENOENT)
#   perfmon  root without CAP_SYS_ADMIN: observes, changes nothing
#   userns   root of a user namespace of its own: refused everywhere
nlfuzz_wrapper() {
	case "$1" in
	root)	 echo "--expect admin" ;;
	nobody)	 echo "--expect none -- setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
	nocaps)	 echo "--expect none -- setpriv --bounding-set=-sys_admin,-perfmon" ;;
	netns)	 echo "--expect netns -- unshare --net" ;;
	perfmon) echo "--expect observe -- setpriv --bounding-set=-sys_admin" ;;
	userns)	 echo "--expect none -- unshare --user --map-root-user" ;;
	*)	 fail "no sender '$1'" ;;
	esac
}

# nlfuzz_corpus FILE: hvctl's requests for each of its commands, recorded.
nlfuzz_corpus() {
	local corpus=$1

	[ -x "$NLFUZZ" ] && [ -f "$NLRECORD" ] ||
		fail "no $NLFUZZ: make -C tests/fuzz"
	: > "$corpus"
	rec() {
		LD_PRELOAD=$NLRECORD NLFUZZ_RECORD=$corpus "$HVCTL" "$@" \
			>/dev/null || fail "hvctl $* failed while recording"
	}
	reset_config
	rec status
	rec -j status
	rec config
	rec -j config
	rec stat --vcpus
	rec set-threshold 50us
	rec set-threshold 10us --reason npf --reason io
	rec set-threshold 1ms --on vmm
	rec set-threshold 2ms --include-halt
	rec set-threshold 100us --preemptions
	rec set-threshold 0 --clear-reasons --exclude-halt
	rec filter pid 1 vcpu 0-3,4095 reason npf,io,cpuid rip 0x1000-0xffff cpu 0-1
	rec filter reason any
	rec filter clear
	rec buffer --size 64 --mode overwrite
	rec buffer --size 2560 --mode discard
	rec start
	rec stop
	rec clear
	rec drain
	chmod 0644 "$corpus"	# for the unprivileged senders too
	reset_config
	echo "  corpus: $(stat -c %s "$corpus") bytes of hvctl requests"
}

# nlfuzz_seed NAME SEED: the seed that sender uses for run SEED, its own:
# each sender sends other messages (SEED * 8 + the sender's index).
nlfuzz_seed() {
	local i=0 s

	for s in root nobody nocaps netns perfmon userns; do
		[ "$s" = "$1" ] && break
		i=$((i + 1))
	done
	echo $(($2 * 8 + i))
}

# nlfuzz_sender NAME COUNT SEED CORPUS: one sender's run, its figures
# printed; fails on any finding. The configuration is reset afterwards.
nlfuzz_sender() {
	local name=$1 count=$2 seed corpus=$4 out rc sent

	seed=$(nlfuzz_seed "$name" "$3")
	# shellcheck disable=SC2046
	out=$("$NLFUZZ" --seed "$seed" --count "$count" --corpus "$corpus" \
		--name "$name" $(nlfuzz_wrapper "$name") 2>&1)
	rc=$?
	sed 's/^/  /' <<<"$out"
	# For the totals of tests/fuzz/soak (nlfuzz_totals).
	[ -n "${NLFUZZ_LOG:-}" ] && printf '%s\n' "$out" >>"$NLFUZZ_LOG"
	[ $rc -eq 0 ] || fail "$name sender, seed $seed: exit $rc (findings above)"
	sent=$(sed -n 's/^NLFUZZ .* sent=\([0-9]*\) .*/\1/p' <<<"$out")
	nlfuzz_total=$((nlfuzz_total + sent))
	reset_config
}

# nlfuzz_totals LOG: the figures of every run in LOG (nlfuzz's output),
# summed: per sender, per command, per errno.
nlfuzz_totals() {
	awk '
	/^NLFUZZ / {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "sender") { s = kv[2]; if (!(s in runs)) order[n++] = s; runs[s]++ }
			else if (kv[1] != "priv" && kv[1] != "seed") v[s, kv[1]] += kv[2]
			if (kv[1] == "priv") priv[s] = kv[2]
		}
		intable = 0
	}
	/^  per command / { intable = 1; next }
	intable && /^    [A-Zc]/ {
		k = substr($0, 5, 16)
		if (!(k in csent)) corder[m++] = k
		csent[k] += $(NF - 3 + (k ~ /^cmd > 9/)); cacc[k] += $(NF - 2 + (k ~ /^cmd > 9/))
		cref[k] += $(NF - 1 + (k ~ /^cmd > 9/))
		next
	}
	intable { intable = 0 }
	/^  refused by errno:/ {
		for (i = 4; i < NF; i += 2) { if (!($i in errs)) eorder[l++] = $i; errs[$i] += $(i + 1) }
	}
	END {
		printf "  %-8s %-8s %5s %9s %9s %9s %8s %6s %7s %8s\n", "sender", "priv", "runs", "sent", "accepted", "refused", "dropped", "acked", "unread", "findings"
		for (i = 0; i < n; i++) {
			s = order[i]
			printf "  %-8s %-8s %5d %9d %9d %9d %8d %6d %7d %8d\n", s, priv[s], runs[s], v[s, "sent"], v[s, "accepted"], v[s, "refused"], v[s, "dropped"], v[s, "acked"], v[s, "unread"], v[s, "findings"]
			T["sent"] += v[s, "sent"]; T["accepted"] += v[s, "accepted"]; T["refused"] += v[s, "refused"]
			T["dropped"] += v[s, "dropped"]; T["acked"] += v[s, "acked"]; T["unread"] += v[s, "unread"]
			T["findings"] += v[s, "findings"]
		}
		printf "  %-8s %-8s %5s %9d %9d %9d %8d %6d %7d %8d\n", "all", "", "", T["sent"], T["accepted"], T["refused"], T["dropped"], T["acked"], T["unread"], T["findings"]
		printf "  per command             sent  accepted   refused\n"
		for (i = 0; i < m; i++) {
			k = corder[i]
			printf "    %s %9d %9d %9d\n", k, csent[k], cacc[k], cref[k]
		}
		printf "  refused by errno:"
		for (i = 0; i < l; i++) printf " %s %d", eorder[i], errs[eorder[i]]
		printf "\n"
	}' "$1"
}

# Afterwards the module traces exactly: hvtrace's counts are the guest's
# and the kernel's own (kvm_exit), and the accounting adds up. (One python
# for each JSON document: under emulation each costs seconds.)
nlfuzz_traces_exactly() {
	local r kernel st s

	reset_config
	st=$("$HVCTL" -j status) || fail "hvctl status failed"
	expect_eq "no reader owns the buffers" none "$(py 'd["reader"]' <<<"$st")"
	ftrace_exits_start
	r=$(guest --pio 200 --cpuid 300) || exit 1
	echo "  $r"
	kernel=$(ftrace_exits_stop)
	s=$("$HVCTL" -j stat) || fail "hvctl stat failed"
	s=$(py "' '.join('%d %d' % (r['code'], r['count']) for r in sorted(d['reasons'], key=lambda r: r.get('code', -1)) if 'code' in r) + '|' + ' '.join(str(sum(r['count'] for r in d['reasons'] if r['reason'] == n)) for n in ('IOIO', 'CPUID'))" <<<"$s") ||
		fail "hvctl stat: no JSON"
	# shellcheck disable=SC2086
	expect_eq "exits per reason (code count), hvtrace = ftrace's kvm_exit" \
		"$(echo $kernel)" "${s%|*}"
	s=${s#*|}
	expect_eq "IOIO count = KVM's io_exits" "$(field kvm_io_exits "$r")" \
		"${s% *}"
	expect_eq "IOIO count (and the last exit)" $((200 + 1)) "${s% *}"
	expect_eq "CPUID count" 300 "${s#* }"
	check_accounting
	reset_config
}
