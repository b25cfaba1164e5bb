// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl stat: where each reason's and each vCPU's time went, and the
 * preemptors, from a canned GET_STATS dump; text and JSON.
 */
#include "fake_nl.h"

static void put_reason(uint32_t code, uint64_t count, uint64_t total,
		       const uint64_t part[HVTRACE_NR_PARTS])
{
	struct nlmsghdr *nlh = fake_reply(HVTRACE_CMD_GET_STATS);
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
	struct nlmsghdr *nlh = fake_reply(HVTRACE_CMD_GET_STATS);
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
	struct nlmsghdr *nlh = fake_reply(HVTRACE_CMD_GET_STATS);
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
	CHECK_HAS(out, "\"reason\":\"NPF\",\"isa\":2,\"code\":1024,\"count\":20,");
	CHECK_HAS(out, "\"max_ns\":9000,\"handling_ns\":100000,\"vmm_ns\":40000,"
		  "\"halt_ns\":0,\"runnable_ns\":50000,\"other_ns\":10000}");
	/* Parts ahead of the total: no handling rather than a wrap. */
	CHECK_HAS(out, "\"handling_ns\":0,\"vmm_ns\":0,\"halt_ns\":150000,");
	CHECK_HAS(out, "\"vcpus\":[{\"vm_id\":1,\"vm_pid\":4242,\"vcpu\":0,"
		  "\"tid\":4243,\"count\":30,\"total_ns\":400000,"
		  "\"min_ns\":1000,\"max_ns\":9000,\"guest_ns\":600000,"
		  "\"handling_ns\":50000,\"vmm_ns\":100000,\"halt_ns\":50000,"
		  "\"runnable_ns\":200000,\"other_ns\":0,\"preemptions\":3,"
		  "\"preempted_ns\":180000}]");
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
		  "              vmm             halt        preempted"
		  "            other\n"
		  "NPF                        100.0us  50.0%    40.0us  20.0%"
		  "       0ns   0.0%    50.0us  25.0%    10.0us   5.0%\n"
		  "HLT                            0ns   0.0%       0ns   0.0%"
		  "   150.0us 100.0%       0ns   0.0%     1.0us   0.7%\n");
	CHECK_HASNT(out, "top preemptors");
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\nvcpu                                               "
		  "exits       time       min       avg       max  preemptions"
		  " preempt time\n"
		  "vm 1    pid 4242     vcpu 0    tid 4243               30"
		  "    400.0us     1.0us    13.3us     9.0us            3"
		  "      180.0us\n");
	CHECK_HAS(out, "\nvcpu time split                     guest"
		  "         handling              vmm             halt"
		  "        preempted            other\n"
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

int main(void)
{
	test_json();
	test_text();
	test_live();
	return unit_report();
}
