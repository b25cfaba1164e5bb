# hvctl apply: a configuration file (hvtrace.conf(5)) set as one change.
# What hvctl config --save prints is the file's configuration, word for
# word, and applying it gives the same text again; a file with a bad
# line, or one the module refuses, changes nothing; the file is the whole
# configuration (what it leaves out goes back to the default); applied
# while recording, it takes effect at once unless it changes the
# buffers, then it is refused whole; --check needs no module.
. "$(dirname "$0")/lib.sh"

reset_config
dir=$(mktemp -d /tmp/74-config.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# save: the configuration in force, as a file.
save() {
	"$HVCTL" config --save || fail "hvctl config --save failed"
}

# refused WHAT FILE MESSAGE: hvctl apply FILE exits 1 saying MESSAGE, and
# the configuration is what it was.
refused() {
	local before out rc

	before=$(save)
	out=$("$HVCTL" apply "$2" 2>&1)
	rc=$?
	expect_eq "$1: exit status" 1 "$rc"
	expect_eq "$1: the message" "$3" "$out"
	[ "$(save)" = "$before" ] || fail "$1: the configuration changed"
	echo "  $1: nothing changed"
}

cat >"$dir/host.conf" <<'EOF'
# A host's configuration: every module key, and the watch's and the
# exporter's, which apply checks but does not send.
threshold 50us
threshold.on total
threshold.halt include	# halt time counts
threshold.preemptions 1ms
threshold.interrupts 300us
threshold.reason cpuid 2us
threshold.reason svm:npf 3us
filter.pid 4242
filter.vcpu 0-1
filter.cpu 0
filter.reason io,hlt
filter.rip 0x1000-0x1fff
buffer.size 4M
buffer.mode overwrite

watch.stall 20ms/50ms
exporter.listen 127.0.0.1:9655
EOF
# The module's order: its dense reason index, VMX before SVM; each reason
# named so that it means that one alone.
cat >"$dir/want.conf" <<'EOF'
# hvtrace.conf(5): the module's configuration, from 'hvctl config --save'
threshold 50us
threshold.on total
threshold.halt include
threshold.preemptions 1ms
threshold.interrupts 300us
threshold.reason vmx:CPUID 2us
threshold.reason svm:CPUID 2us
threshold.reason svm:NPF 3us
filter.pid 4242
filter.vcpu 0-1
filter.cpu 0
filter.reason vmx:HLT,IO_INSTRUCTION,svm:HLT,IOIO
filter.rip 0x1000-0x1fff
buffer.size 4M
buffer.mode overwrite
EOF
hv apply "$dir/host.conf"
save >"$dir/saved.conf"
diff -u "$dir/want.conf" "$dir/saved.conf" || fail "config --save is not the file applied"
echo "  applied and saved: $(grep -vc '^#' "$dir/saved.conf") settings, as expected"
expect_eq "JSON: threshold" 50000 "$("$HVCTL" -j config | py "d['threshold_ns']")"
expect_eq "JSON: CPUID and NPF overrides" "[2000, 2000, 3000]" \
	"$("$HVCTL" -j config | py "[r['threshold_ns'] for r in d['reason_thresholds']]")"

# Round trip: the saved file applied, saved again, is the same text.
hv set-threshold 7ms
hv filter clear
hv apply "$dir/saved.conf"
save >"$dir/again.conf"
diff -u "$dir/saved.conf" "$dir/again.conf" || fail "apply(save()) then save() differs"
echo "  apply(save()) then save(): the same text"

# A bad line at the end: FILE:LINE, exit 1, nothing changed.
{ sed 's/^threshold 50us/threshold 9ms/; s/^filter.pid 4242/filter.pid any/
	/^buffer.mode/d' "$dir/host.conf"; echo "buffer.mode sideways"; } \
	>"$dir/bad.conf"
line=$(wc -l <"$dir/bad.conf")
refused "bad line $line" "$dir/bad.conf" \
	"Error: $dir/bad.conf:$line: buffer.mode: mode is discard or overwrite, not 'sideways'."

# A file the module refuses (no such CPU): refused whole.
sed 's/^filter.cpu 0$/filter.cpu 4000/; s/^threshold 50us/threshold 9ms/' \
	"$dir/host.conf" >"$dir/cpu.conf"
line=$(grep -n '^filter.cpu' "$dir/cpu.conf" | cut -d: -f1)
refused "refused by the module" "$dir/cpu.conf" \
	"Error: no such CPU in the CPU filter (cpu.conf:$line: filter.cpu 4000)."

# The same from standard input.
before=$(save)
out=$("$HVCTL" apply - <"$dir/bad.conf" 2>&1)
[ $? -eq 1 ] || fail "stdin: bad file accepted"
expect_eq "stdin: the message" "Error: <stdin>:$(wc -l <"$dir/bad.conf"): buffer.mode: mode is discard or overwrite, not 'sideways'." "$out"
[ "$(save)" = "$before" ] || fail "stdin: a bad file changed the configuration"

# While recording: the buffers as they are, the rest new, at once; what
# the file leaves out (the filters, the overrides) goes back to its default.
cat >"$dir/rec.conf" <<'EOF'
threshold 50ms
buffer.size 4M
buffer.mode overwrite
EOF
cat >"$dir/rec-want.conf" <<'EOF'
# hvtrace.conf(5): the module's configuration, from 'hvctl config --save'
threshold 50ms
threshold.on total
threshold.halt exclude
threshold.preemptions 0ns
threshold.interrupts off
filter.pid any
filter.vcpu any
filter.cpu any
filter.reason any
filter.rip any
buffer.size 4M
buffer.mode overwrite
EOF
hv clear
hv start
hv apply "$dir/rec.conf"
expect_eq "still recording" on "$("$HVCTL" -j status | py "d['recording']")"
save >"$dir/rec-saved.conf"
diff -u "$dir/rec-want.conf" "$dir/rec-saved.conf" || fail "applied while recording: not the file"
# No preemption records wanted below: only the exits count.
hv set-threshold 3600s --preemptions
r=$(guest --slow 3:100000 --cpuid 200) || exit 1
ev=$("$HVCTL" -j drain) || fail "drain failed"
expect_eq "the file's threshold in force: slow exits recorded" 3 \
	"$(echo "$ev" | events_check count entered)"
expect_eq "only those, each >= 100ms" True \
	"$(echo "$ev" | events_check every entered 'e["duration_ns"] >= 100000000')"

# A file that changes the buffers while recording: refused whole.
printf 'threshold 1ms\n' >"$dir/small.conf"
refused "buffers while recording" "$dir/small.conf" \
	"Error: stop recording and reading before changing the buffers (small.conf sets no buffer.size: the default 2560K)."
hv stop
hv clear

# The shipped file sets nothing: every default.
hv apply "$HVT_ROOT/etc/hvtrace.conf"
save >"$dir/default.conf"
sed 's/^threshold 50ms$/threshold 0ns/; s/^buffer.size 4M$/buffer.size 2560K/
	s/^buffer.mode overwrite$/buffer.mode discard/' "$dir/rec-want.conf" \
	>"$dir/default-want.conf"
diff -u "$dir/default-want.conf" "$dir/default.conf" || fail "etc/hvtrace.conf: not the defaults"
echo "  etc/hvtrace.conf: the defaults"

# VM names: a running VMM's name or UUID stands for its pid, resolved
# once, when applied; a process that only claims the name is no VMM.
echo "# VM names"
uuid=6a1e5c4e-0074-4000-8000-000000000074
"$HVGUEST" --name web01 --uuid "$uuid" --forever --pio 1 \
	>/tmp/74-guest.out 2>&1 &
gpid=$!
sh -c 'sleep 120' sh -name web01 -uuid "$uuid" &
fake=$!
for _ in $(seq 100); do
	[ "$("$HVCTL" -j stat --vcpus | py "[v['vm_pid'] for v in d['vcpus']].count($gpid)")" = 1 ] && break
	sleep 0.1
done
expect_eq "stat --vcpus: the VMM's name and UUID" "web01 $uuid" \
	"$("$HVCTL" -j stat --vcpus | py "' '.join('%s %s' % (v['vm_name'], v['vm_uuid']) for v in d['vcpus'] if v['vm_pid'] == $gpid)")"
hv filter pid web01
expect_eq "filter pid NAME: the VMM's pid, not the claimant's" "$gpid" \
	"$("$HVCTL" -j config | py "d['filters']['pid']")"
printf 'filter.pid %s\n' "${uuid^^}" >"$dir/named.conf"
hv apply "$dir/named.conf"
expect_eq "filter.pid UUID (any case) in a file: saved as the pid" \
	"filter.pid $gpid" "$(save | grep '^filter.pid')"
kill "$gpid"
wait "$gpid"
refused "filter.pid NAME of no running VM" "$dir/named.conf" \
	"Error: $dir/named.conf:1: filter.pid ${uuid^^}: no running VM of that name or UUID (nor a pid): a name is resolved to its VMM's pid once, when the file is applied (apply it again once the VM runs)."
kill "$fake"
wait "$fake" 2>/dev/null
reset_config

# --check needs no module, and opens no netlink socket: resolving the
# family would load the module (its alias, net-pf-16-proto-16-family-hvtrace).
reset_config
rmmod hvtrace || fail "unload"
hv apply --check "$dir/host.conf"
out=$("$HVCTL" apply --check "$dir/bad.conf" 2>&1)
[ $? -eq 1 ] || fail "--check: bad file accepted"
grep -q "bad.conf:$(wc -l <"$dir/bad.conf"): buffer.mode" <<<"$out" || fail "--check: '$out'"
[ -d /sys/module/hvtrace ] && fail "apply --check loaded the module"
echo "  --check: no module needed, none loaded"
# apply itself loads it, then sets the file's configuration.
hv apply "$dir/host.conf"
[ -d /sys/module/hvtrace ] || fail "apply did not load the module"
save >"$dir/loaded.conf"
diff -u "$dir/want.conf" "$dir/loaded.conf" || fail "apply on a loaded-by-alias module"
echo "  apply loaded the module and set the file"
reset_config
