// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl stat: where each reason's and each vCPU's time went, and the
 * preemptors, from a canned GET_STATS dump; text and JSON. ABI 3: a
 * histogram that goes on in further messages, exits that never
 * re-entered, vCPUs out of the guest now, destroyed vCPUs.
 */
#include "fake_nl.h"

static void put_reason(uint32_t code, uint64_t count, uint64_t total,
		       const uint64_t part[HVTRACE_NR_PARTS])
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_REASON);

	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, HVTRACE_ISA_SVM);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, code);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_COUNT, count);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_TOTAL_NS, total);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_MIN_NS, 1000);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_MAX_NS, 9000);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_VMM_NS, part[HVTRACE_PART_VMM]);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_HALT_NS, part[HVTRACE_PART_HALT]);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_RUNNABLE_NS,
			 part[HVTRACE_PART_RUNNABLE]);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_OTHER_NS, part[HVTRACE_PART_OTHER]);
	mnl_attr_nest_end(nlh, n);
}

static void put_vcpu(void)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_VCPU);

	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_ID, 1);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_PID, 4242);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_ID, 0);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_TID, 4243);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_COUNT, 30);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_TOTAL_NS, 400000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_MIN_NS, 1000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_MAX_NS, 9000);
	/* Guest 600us + exits 400us: 1ms, so shares are ns / 10000. */
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_GUEST_NS, 600000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_VMM_NS, 100000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_HALT_NS, 50000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_RUNNABLE_NS, 200000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_OTHER_NS, 0);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_PREEMPTIONS, 3);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_PREEMPTED_NS, 180000);
	mnl_attr_nest_end(nlh, n);
}

static void put_preemptor(uint32_t pid, const char *comm, bool vcpu,
			  uint64_t count, uint64_t ns)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_PREEMPTOR);

	mnl_attr_put_u32(nlh, HVTRACE_PRE_PID, pid);
	mnl_attr_put_strz(nlh, HVTRACE_PRE_COMM, comm);
	mnl_attr_put_u8(nlh, HVTRACE_PRE_VCPU, vcpu);
	mnl_attr_put_u64(nlh, HVTRACE_PRE_COUNT, count);
	mnl_attr_put_u64(nlh, HVTRACE_PRE_NS, ns);
	mnl_attr_nest_end(nlh, n);
}

static void put_stats(void)
{
	/* NPF: handling 100us of 200us; the parts of HLT exceed its total. */
	const uint64_t npf[HVTRACE_NR_PARTS] = { 40000, 0, 50000, 10000 };
	const uint64_t hlt[HVTRACE_NR_PARTS] = { 0, 150000, 0, 1000 };
	struct nlmsghdr *nlh;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_u64(nlh, HVTRACE_A_STATS_AGE_NS, 2000000000);
	put_reason(0x400, 20, 200000, npf);
	put_reason(0x078, 10, 150000, hlt);
	put_vcpu();
	put_preemptor(77, "kworker/0:1", false, 1, 20000);
	put_preemptor(4244, "CPU 1/KVM", true, 2, 160000);
}

static void test_json(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"reason\":\"NPF\",\"isa\":2,\"code\":1024,\"count\":20,"
		  "\"no_entry\":0,");
	CHECK_HAS(out, "\"max_ns\":9000,\"handling_ns\":100000,\"vmm_ns\":40000,"
		  "\"halt_ns\":0,\"runnable_ns\":50000,\"other_ns\":10000}");
	/* Parts ahead of the total: no handling rather than a wrap. */
	CHECK_HAS(out, "\"handling_ns\":0,\"vmm_ns\":0,\"halt_ns\":150000,");
	CHECK_HAS(out, "\"vcpus\":[{\"vm_id\":1,\"vm_pid\":4242,\"vcpu\":0,"
		  "\"tid\":4243,\"vm_name\":\"\",\"vm_uuid\":\"\",\"count\":30,\"total_ns\":400000,"
		  "\"min_ns\":1000,\"max_ns\":9000,\"guest_ns\":600000,"
		  "\"handling_ns\":50000,\"vmm_ns\":100000,\"halt_ns\":50000,"
		  "\"runnable_ns\":200000,\"other_ns\":0,\"preemptions\":3,"
		  "\"preempted_ns\":180000,\"gone\":false,\"irqs\":[],"
		  "\"irq_unmatched\":0,\"irq_reinjected\":0,"
		  "\"irq_posted\":0}]");
	/* Nobody in an exit right now. */
	CHECK_HAS(out, "\"exits\":30,\"out_of_guest\":[],\"reasons\":[");
	/* Most time first. */
	CHECK_HAS(out, "\"preemptors\":[{\"pid\":4244,\"comm\":\"CPU 1/KVM\","
		  "\"vcpu\":true,\"count\":2,\"ns\":160000},{\"pid\":77,"
		  "\"comm\":\"kworker/0:1\",\"vcpu\":false,\"count\":1,"
		  "\"ns\":20000}]}\n");
	free(out);

	/* Without --vcpus: neither vCPUs nor preemptors. */
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "\"runnable_ns\":50000");
	CHECK_HASNT(out, "\"vcpus\"");
	CHECK_HASNT(out, "\"preemptors\"");
	free(out);
}

static void test_text(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "\nreason time split                handling"
		  "              vmm             halt         runnable"
		  "            other\n"
		  "NPF                        100.0us  50.0%    40.0us  20.0%"
		  "       0ns   0.0%    50.0us  25.0%    10.0us   5.0%\n"
		  "HLT                            0ns   0.0%       0ns   0.0%"
		  "   150.0us 100.0%       0ns   0.0%     1.0us   0.7%\n");
	CHECK_HASNT(out, "top preemptors");
	CHECK_HASNT(out, "out of the guest");
	CHECK_HASNT(out, "never re-entered");
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\nvcpu                                        name      "
		  "              exits       time       min       avg       max  preemptions"
		  "    preempted\n"
		  "vm 1    pid 4242     vcpu 0    tid 4243     -     "
		  "                     30"
		  "    400.0us     1.0us    13.3us     9.0us            3"
		  "      180.0us\n");
	CHECK_HAS(out, "\nvcpu time split                     guest"
		  "         handling              vmm             halt"
		  "         runnable            other\n"
		  "vm 1 vcpu 0                600.0us  60.0%    50.0us   5.0%"
		  "   100.0us  10.0%    50.0us   5.0%   200.0us  20.0%"
		  "       0ns   0.0%\n");
	CHECK_HAS(out, "\ntop preemptors                pid vcpu        count"
		  "       time\n"
		  "CPU 1/KVM                    4244  yes            2"
		  "    160.0us\n"
		  "kworker/0:1                    77   no            1"
		  "     20.0us\n");
	free(out);
}

/* Live mode fetches twice and prints the second snapshot. */
static void test_live(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", "--count",
			  "1", "--interval", "10ms", NULL);
	CHECK_HAS(out, "{\"window_ns\":10000000,");
	CHECK_HAS(out, "\"preemptors\":[{\"pid\":4244,");
	free(out);
}

/*
 * ABI 3. HLT's histogram: one exit in each of buckets 0..299, sent as the
 * module does, 128 buckets a message: the first with the counters, the
 * next ones REASON nests of ISA, code and histogram only.
 */
static void put_hist_reason(uint32_t code, bool has_code, unsigned int n,
			    uint64_t no_entry)
{
	struct hvtrace_hist_bucket b[128];
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	for (unsigned int first = 0; first < n; first += 128) {
		unsigned int k = n - first < 128 ? n - first : 128;

		nlh = fake_dump(HVTRACE_CMD_GET_STATS);
		nest = mnl_attr_nest_start(nlh, HVTRACE_A_REASON);
		mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, HVTRACE_ISA_SVM);
		if (has_code)
			mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, code);
		if (!first) {
			mnl_attr_put_u64(nlh, HVTRACE_RSN_COUNT, n);
			mnl_attr_put_u64(nlh, HVTRACE_RSN_TOTAL_NS, 3000000);
			mnl_attr_put_u64(nlh, HVTRACE_RSN_MIN_NS, 0);
			mnl_attr_put_u64(nlh, HVTRACE_RSN_MAX_NS, 1000000000000);
			mnl_attr_put_u64(nlh, HVTRACE_RSN_NO_ENTRY, no_entry);
		}
		for (unsigned int i = 0; i < k; i++)
			b[i] = (struct hvtrace_hist_bucket){ .index = first + i,
							     .count = 1 };
		mnl_attr_put(nlh, HVTRACE_RSN_HIST, k * sizeof(b[0]), b);
		mnl_attr_nest_end(nlh, nest);
	}
}

/* A vCPU; EXIT_NS non-zero: in an exit of REASON for so long, in STATE. */
static void put_vcpu3(uint32_t id, uint32_t tid, uint64_t exit_ns,
		      uint32_t reason, uint8_t state, bool gone)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_VCPU);

	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_ID, 2);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_PID, 5000);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_ID, id);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_TID, tid);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_COUNT, 10);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_TOTAL_NS, 100000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_MIN_NS, 1000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_MAX_NS, 50000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_GUEST_NS, 100000);
	if (exit_ns) {
		mnl_attr_put_u8(nlh, HVTRACE_VCPU_EXIT_ISA, HVTRACE_ISA_SVM);
		mnl_attr_put_u32(nlh, HVTRACE_VCPU_EXIT_REASON, reason);
		mnl_attr_put_u64(nlh, HVTRACE_VCPU_EXIT_NS, exit_ns);
		mnl_attr_put_u8(nlh, HVTRACE_VCPU_EXIT_STATE, state);
	}
	if (gone)
		mnl_attr_put_u8(nlh, HVTRACE_VCPU_GONE, 1);
	mnl_attr_nest_end(nlh, n);
}

static void put_stats3(void)
{
	const uint64_t none[HVTRACE_NR_PARTS] = { 0 };
	struct nlmsghdr *nlh;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_u64(nlh, HVTRACE_A_STATS_AGE_NS, 2000000000);
	put_hist_reason(0x078, true, 300, 2);		/* HLT */
	put_reason(0x07b, 5, 5000, none);		/* IOIO, no histogram */
	put_hist_reason(0, false, 130, 0);		/* other SVM */
	/* Live: one halted a little, one held by its VMM for 3 minutes. */
	put_vcpu3(0, 5001, 2000000, 0x078, HVTRACE_VCPU_BLOCKED, false);
	put_vcpu3(1, 5002, 180000000000, 0x07b, HVTRACE_VCPU_IN_VMM, false);
	put_vcpu3(2, 5003, 0, 0, 0, false);
	/* Destroyed since the last clear. */
	put_vcpu3(3, 5004, 0, 0, 0, true);
}

/*
 * Percentiles over the merged histogram: ranks 150, 297 and 300 of 300
 * fall in buckets 149, 296 and 299: midpoints 427, 10367 and 11135 ns
 * (from the first message alone they would be 64, 127 and 127 ns).
 * "other SVM", buckets 0..129: ranks 65, 129, 130 in buckets 64, 128 and
 * 129, so 64, 259 and 267 ns.
 */
static void test_hist_continued(void)
{
	char *out;

	put_stats3();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "{\"reason\":\"HLT\",\"isa\":2,\"code\":120,"
		  "\"count\":300,\"no_entry\":2,\"rate_per_s\":150,"
		  "\"total_ns\":3000000,\"share_ppm\":499584,"
		  "\"min_ns\":0,\"p50_ns\":427,"
		  "\"p99_ns\":10367,\"p999_ns\":11135,"
		  "\"max_ns\":1000000000000,");
	/* A catch-all's continuation: no code in any of its messages. */
	CHECK_HAS(out, "{\"reason\":\"other SVM\",\"isa\":2,\"count\":130,"
		  "\"no_entry\":0,\"rate_per_s\":65,\"total_ns\":3000000,"
		  "\"share_ppm\":499584,\"min_ns\":0,\"p50_ns\":64,\"p99_ns\":259,\"p999_ns\":267,");
	CHECK_HAS(out, "\"reason\":\"IOIO\",\"isa\":2,\"code\":123,\"count\":5,"
		  "\"no_entry\":0,");
	/* Continuations are no rows of their own. */
	CHECK_HAS(out, "\"exits\":435,");
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "\nHLT                               300        150     3.00ms"
		  "  49.96%       0ns     427ns    10.4us    11.1us 1000.000s\n"
		  "other SVM                         130         65     3.00ms"
		  "  49.96%       0ns      64ns     259ns     267ns 1000.000s\n");
	CHECK_HAS(out, "\nnever re-entered (their vCPU was destroyed during the "
		  "exit; counted above): HLT 2\n");
	free(out);
}

/* A continuation of another reason than the one before: refused. */
static void test_hist_orphan(void)
{
	struct hvtrace_hist_bucket b = { .index = 3, .count = 1 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	put_stats3();
	nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	nest = mnl_attr_nest_start(nlh, HVTRACE_A_REASON);
	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, HVTRACE_ISA_SVM);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, 0x400);
	mnl_attr_put(nlh, HVTRACE_RSN_HIST, sizeof(b), &b);
	mnl_attr_nest_end(nlh, nest);
	hvctl_json = true;
	fake_capture_begin();
	CHECK_INT(FAKE_RUN(hvctl_cmd_stat, "stat", NULL), 1);
	free(fake_capture_end());
	CHECK_STR(fake_err, "the module's statistics continue a histogram "
		  "without its reason (ISA 2 code 0x400)");
}

/* In an exit now: longest first, the stuck one marked; gone flagged. */
static void test_out_of_guest(void)
{
	char *out;

	put_stats3();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "\"out_of_guest\":[{\"vm_id\":2,\"vm_pid\":5000,"
		  "\"vcpu\":1,\"tid\":5002,\"reason\":\"IOIO\",\"isa\":2,"
		  "\"code\":123,\"exit_ns\":180000000000,\"state\":\"in_vmm\"},"
		  "{\"vm_id\":2,\"vm_pid\":5000,\"vcpu\":0,\"tid\":5001,"
		  "\"reason\":\"HLT\",\"isa\":2,\"code\":120,"
		  "\"exit_ns\":2000000,\"state\":\"blocked\"}],\"reasons\":[");
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "435 exits over 2.0s\n\n"
		  "out of the guest now (longest first):\n"
		  "!! vm 2    pid 5000     vcpu 1    tid 5002     IOIO"
		  "                   180.000s in VMM      "
		  "<-- STUCK out of the guest\n"
		  "   vm 2    pid 5000     vcpu 0    tid 5001     HLT"
		  "                      2.00ms blocked   \n\nreason ");
	free(out);

	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"vcpu\":2,\"tid\":5003,\"vm_name\":\"\",\"vm_uuid\":\"\","
		  "\"count\":10,");
	CHECK_HAS(out, "\"preempted_ns\":0,\"gone\":false,\"irqs\":[],"
		  "\"irq_unmatched\":0,\"irq_reinjected\":0,\"irq_posted\":0},"
		  "{\"vm_id\":2,\"vm_pid\":5000,\"vcpu\":3,\"tid\":5004,");
	CHECK_HAS(out, "\"preempted_ns\":0,\"gone\":true,\"irqs\":[],"
		  "\"irq_unmatched\":0,\"irq_reinjected\":0,\"irq_posted\":0}],"
		  "\"preemptors\":[]}");
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "vm 2    pid 5000     vcpu 2    tid 5003     -     "
		  "                     10"
		  "    100.0us     1.0us    10.0us    50.0us            0"
		  "          0ns\n"
		  "vm 2    pid 5000     vcpu 3    tid 5004     -     "
		  "                     10"
		  "    100.0us     1.0us    10.0us    50.0us            0"
		  "          0ns  gone\n");
	CHECK_HAS(out, "\nvm 2 vcpu 3 (gone)         100.0us  50.0%");
	free(out);

	/* Live mode shows it on every refresh. */
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--count", "2",
			  "--interval", "10ms", NULL);
	CHECK_HAS(out, "out of the guest now (longest first):\n!! vm 2 ");
	CHECK(strstr(strstr(out, "STUCK") + 1, "STUCK") != NULL);
	free(out);
}

/*
 * Labels wider than the reason columns (24, 20 out of the guest) widen
 * them, so the columns after them stay in line; JSON is as ever.
 */
static void test_long_labels(void)
{
	const uint64_t none[HVTRACE_NR_PARTS] = { 0 };
	struct nlmsghdr *nlh;
	char *out;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_u64(nlh, HVTRACE_A_STATS_AGE_NS, 2000000000);
	put_reason(0x402, 5, 5000, none);	/* AVIC_UNACCELERATED_ACCESS */
	put_reason(0x1234, 3, 3000, none);	/* SVM 0x1234 */
	put_vcpu3(0, 5001, 2000, 0x402, HVTRACE_VCPU_IN_KERNEL, false);

	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "out of the guest now (longest first):\n"
		  "   vm 2    pid 5000     vcpu 0    tid 5001     "
		  "AVIC_UNACCELERATED_ACCESS      2.0us in kernel \n\n"
		  "reason                           count     rate/s"
		  "       time   share       min       p50       p99"
		  "     p99.9       max\n"
		  "AVIC_UNACCELERATED_ACCESS            5          2"
		  "      5.0us  62.50%     1.0us         -         -"
		  "         -     9.0us\n"
		  "SVM 0x1234                           3          2"
		  "      3.0us  37.50%     1.0us         -         -"
		  "         -     9.0us\n");
	CHECK_HAS(out, "\nreason time split                 handling"
		  "              vmm             halt         runnable"
		  "            other\n"
		  "AVIC_UNACCELERATED_ACCESS     5.0us 100.0%       0ns"
		  "   0.0%       0ns   0.0%       0ns   0.0%       0ns"
		  "   0.0%\n"
		  "SVM 0x1234                    3.0us 100.0%       0ns");
	free(out);

	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", NULL);
	CHECK_HAS(out, "\"out_of_guest\":[{\"vm_id\":2,\"vm_pid\":5000,"
		  "\"vcpu\":0,\"tid\":5001,"
		  "\"reason\":\"AVIC_UNACCELERATED_ACCESS\",\"isa\":2,"
		  "\"code\":1026,\"exit_ns\":2000,\"state\":\"in_kernel\"}],"
		  "\"reasons\":[{\"reason\":\"AVIC_UNACCELERATED_ACCESS\",");
	free(out);
}

/* Bad numbers are refused before the module is asked. */
static void test_bad_args(void)
{
	static const char *const bad[][3] = {
		{ "--count", "-1", "--count must be a positive number, not '-1'" },
		{ "--count=-1", NULL, "--count must be a positive number, not '-1'" },
		{ "--count", "0", "--count must be a positive number, not '0'" },
		{ "--count", "18446744073709551616", "--count must be at most "
		  "18446744073709551615, not '18446744073709551616'" },
		{ "--interval", "-1s", "--interval: negative duration '-1s'" },
		{ "--interval=5ms", NULL, "--interval must be at least 10ms" },
		{ "--interval", "0", "--interval must be at least 10ms" },
		{ "--vcpus=1", NULL, "--vcpus takes no value" },
		{ "--count", NULL, "--count needs a value" },
		{ "x", NULL, "unexpected argument 'x'" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *a = (char *)bad[i][0], *v = (char *)bad[i][1];

		fake_reset();
		CHECK_INT(v ? FAKE_RUN(hvctl_cmd_stat, "stat", a, v, NULL) :
			  FAKE_RUN(hvctl_cmd_stat, "stat", a, NULL), 2);
		CHECK_STR(fake_err, bad[i][2]);
		CHECK_INT(fake_opens, 0);
	}
}

int main(void)
{
	test_bad_args();
	test_json();
	test_text();
	test_live();
	test_hist_continued();
	test_hist_orphan();
	test_out_of_guest();
	test_long_labels();
	return unit_report();
}
