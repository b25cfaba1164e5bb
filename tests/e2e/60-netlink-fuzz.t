# Hostile netlink: nlfuzz (tests/fuzz/) sends random and mutated messages
# to the family from six senders, one after another, checking every
# answer against the ABI (tests/fuzz/oracle.c), and the module traces
# exactly afterwards. The senders (tests/fuzz/senders.sh): root; uid
# 65534; root without CAP_SYS_ADMIN and CAP_PERFMON; root in another
# network namespace; root with CAP_PERFMON but not CAP_SYS_ADMIN (it may
# observe, never change or drain); root of a user namespace of its own.
# The templates are hvctl's own requests, recorded. A fixed seed, the same
# messages every run, each sender its own (nlfuzz_seed): 100,000 in all
# (root's cost about twice the others' under emulation, so it sends
# fewer) on the stock kernels, a short run of 10,000 on PREEMPT_RT and
# the debug kernel (the same senders and templates).
# NLFUZZ_SEED and NLFUZZ_COUNT (per sender) change them; `make fuzz` is
# the long run.
. "$(dirname "$0")/lib.sh"
. "$HVT_ROOT/tests/fuzz/senders.sh"

seed=${NLFUZZ_SEED:-1}
corpus=$(mktemp /tmp/nlfuzz.corpus.XXXXXX)
nlfuzz_corpus "$corpus"
case "$HVT_KERNEL_KIND" in
stock) root=20000 each=16000 want=100000 ;;
*) root=2000 each=1600 want=10000 ;;
esac
nlfuzz_sender root "${NLFUZZ_COUNT:-$root}" "$seed" "$corpus"
for s in nobody nocaps netns perfmon userns; do
	nlfuzz_sender "$s" "${NLFUZZ_COUNT:-$each}" "$seed" "$corpus"
done
rm -f "$corpus"
[ "$nlfuzz_total" -ge "$want" ] || [ -n "${NLFUZZ_COUNT:-}" ] ||
	fail "only $nlfuzz_total messages in all"
echo "  $nlfuzz_total messages in all"
nlfuzz_traces_exactly
