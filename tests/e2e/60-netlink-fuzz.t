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
# fewer). NLFUZZ_SEED and NLFUZZ_COUNT (per sender) change them; `make
# fuzz` is the long run.
. "$(dirname "$0")/lib.sh"
. "$HVT_ROOT/tests/fuzz/senders.sh"

seed=${NLFUZZ_SEED:-1}
corpus=$(mktemp /tmp/nlfuzz.corpus.XXXXXX)
nlfuzz_corpus "$corpus"
nlfuzz_sender root "${NLFUZZ_COUNT:-20000}" "$seed" "$corpus"
for s in nobody nocaps netns perfmon userns; do
	nlfuzz_sender "$s" "${NLFUZZ_COUNT:-16000}" "$seed" "$corpus"
done
rm -f "$corpus"
[ "$nlfuzz_total" -ge 100000 ] || [ -n "${NLFUZZ_COUNT:-}" ] ||
	fail "only $nlfuzz_total messages in all"
echo "  $nlfuzz_total messages in all"
nlfuzz_traces_exactly
