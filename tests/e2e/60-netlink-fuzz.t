# Hostile netlink: nlfuzz (tests/fuzz/) sends random and mutated messages
# to the family from four senders, one after another, checking every
# answer against the ABI (tests/fuzz/oracle.c), and the module traces
# exactly afterwards. The senders (tests/fuzz/senders.sh): root; uid
# 65534; root without CAP_SYS_ADMIN and CAP_PERFMON; root in another
# network namespace. The templates are hvctl's own requests, recorded. A
# fixed seed, the same messages every run: 100,000 in all (root's cost
# about twice the others' under emulation). NLFUZZ_SEED and NLFUZZ_COUNT
# (per sender) change them; `make fuzz` is the long run.
. "$(dirname "$0")/lib.sh"
. "$HVT_ROOT/tests/fuzz/senders.sh"

seed=${NLFUZZ_SEED:-1}
corpus=$(mktemp /tmp/nlfuzz.corpus.XXXXXX)
nlfuzz_corpus "$corpus"
nlfuzz_sender root "${NLFUZZ_COUNT:-22000}" "$seed" "$corpus"
for s in nobody nocaps netns; do
	nlfuzz_sender "$s" "${NLFUZZ_COUNT:-26000}" "$seed" "$corpus"
done
rm -f "$corpus"
[ "$nlfuzz_total" -ge 100000 ] || [ -n "${NLFUZZ_COUNT:-}" ] ||
	fail "only $nlfuzz_total messages in all"
echo "  $nlfuzz_total messages in all"
nlfuzz_traces_exactly
