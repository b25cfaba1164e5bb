# Hostile netlink: nlfuzz (tests/fuzz/) sends random and mutated messages
# to the family from four senders, checking every answer against the ABI,
# and the module still traces exactly afterwards.
#   root                       everything may change; the configuration
#                              must be what was accepted, setting by setting
#   uid 65534                  refused everywhere (-EPERM for well-formed
#                              requests), nothing ever changes
#   root without CAP_SYS_ADMIN and CAP_PERFMON: the same
#   root in another netns      the family does not exist (-ENOENT)
# The templates are hvctl's own requests, recorded (nlrecord.so). A fixed
# seed: the same messages every run (NLFUZZ_SEED, and NLFUZZ_COUNT for the
# messages of each sender, change them; by default 100,000 in all, root's
# cost twice the others' under emulation).
. "$(dirname "$0")/lib.sh"

FUZZ=$HVT_ROOT/build/fuzz/nlfuzz
RECORD=$HVT_ROOT/build/fuzz/nlrecord.so
SEED=${NLFUZZ_SEED:-1}
ROOT_COUNT=${NLFUZZ_COUNT:-22000}
COUNT=${NLFUZZ_COUNT:-26000}
[ -x "$FUZZ" ] && [ -f "$RECORD" ] || fail "no $FUZZ: make -C tests/fuzz"

# 1. The corpus: what hvctl sends for each of its commands.
reset_config
corpus=$(mktemp /tmp/nlfuzz.corpus.XXXXXX)
rec() {
	LD_PRELOAD=$RECORD NLFUZZ_RECORD=$corpus "$HVCTL" "$@" >/dev/null ||
		fail "hvctl $* failed while recording"
}
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
chmod 0644 "$corpus"
reset_config
echo "  corpus: $(stat -c %s "$corpus") bytes of hvctl requests"

# 2. The four senders, one after another (each checks its own answers;
# the supervisor checks that nothing changed for the unprivileged ones).
total=0
sender() {
	local name=$1 count=$2 out rc sent

	shift 2
	out=$("$FUZZ" --seed "$SEED" --count "$count" --corpus "$corpus" \
		--name "$name" "$@" 2>&1)
	rc=$?
	sed 's/^/  /' <<<"$out"
	[ $rc -eq 0 ] || fail "$name sender: exit $rc (findings above)"
	sent=$(sed -n 's/^NLFUZZ .* sent=\([0-9]*\) .*/\1/p' <<<"$out")
	total=$((total + sent))
}
sender root "$ROOT_COUNT" --expect admin
reset_config
sender nobody "$COUNT" --expect none -- setpriv --reuid=65534 --regid=65534 --clear-groups
sender nocaps "$COUNT" --expect none -- setpriv --bounding-set=-sys_admin,-perfmon
sender netns "$COUNT" --expect netns -- unshare --net
rm -f "$corpus"
[ "$total" -ge 100000 ] || [ -n "${NLFUZZ_COUNT:-}" ] ||
	fail "only $total messages in all"
echo "  $total messages in all"

# 3. Afterwards the module traces exactly: hvtrace's counts are the
# guest's and the kernel's own (kvm_exit), and the accounting adds up.
reset_config
expect_eq "no reader owns the buffers" none "$("$HVCTL" -j status | py 'd["reader"]')"
ftrace_exits_start
r=$(guest --pio 200 --cpuid 300) || exit 1
echo "  $r"
kernel=$(ftrace_exits_stop)
s=$("$HVCTL" -j stat) || fail "hvctl stat failed"
expect_eq "exits per reason (code count), hvtrace = ftrace's kvm_exit" \
	"$(echo $kernel)" "$(echo $(hvtrace_exits))"
count() {
	echo "$s" | py "sum(r['count'] for r in d['reasons'] if r['reason'] == '$1')"
}
expect_eq "IOIO count = KVM's io_exits" "$(field kvm_io_exits "$r")" "$(count IOIO)"
expect_eq "IOIO count (and the last exit)" $((200 + 1)) "$(count IOIO)"
expect_eq "CPUID count" 300 "$(count CPUID)"
check_accounting
reset_config
