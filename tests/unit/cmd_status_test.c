// SPDX-License-Identifier: GPL-2.0
/* hvctl status: both accountings, per CPU and in total, text and JSON. */
#include "fake_nl.h"

/* Exits 100 + base.., preemption records 10 + base.. */
static void put_counts(struct nlmsghdr *nlh, uint64_t base)
{
	for (uint16_t a = HVTRACE_ACCT_SEEN; a <= HVTRACE_ACCT_UNPAIRED; a++)
		mnl_attr_put_u64(nlh, a, 100 + base + a);
	for (uint16_t a = HVTRACE_ACCT_PREEMPT_SEEN;
	     a <= HVTRACE_ACCT_PREEMPT_LOST; a++)
		mnl_attr_put_u64(nlh, a, 10 + base + a);
}

static void put_status(void)
{
	struct nlmsghdr *nlh;
	struct nlattr *acct, *cpu;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_strz(nlh, HVTRACE_A_VERSION, "0.1.0");
	mnl_attr_put_u32(nlh, HVTRACE_A_ABI, 2);
	mnl_attr_put_strz(nlh, HVTRACE_A_VENDOR, "kvm_amd");
	acct = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
	put_counts(nlh, 1000);
	for (uint32_t i = 0; i < 2; i++) {
		cpu = mnl_attr_nest_start(nlh, HVTRACE_ACCT_CPU_NEST);
		mnl_attr_put_u32(nlh, HVTRACE_ACCT_CPU, i);
		put_counts(nlh, i * 100);
		mnl_attr_nest_end(nlh, cpu);
	}
	mnl_attr_nest_end(nlh, acct);
}

int main(void)
{
	char *out;

	put_status();
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"accounting\":{\"cpus\":[{\"cpu\":0,\"seen\":104,"
		  "\"filtered\":105,\"below_threshold\":106,\"recorded\":107,"
		  "\"lost\":108,\"overwritten\":109,\"drained\":110,"
		  "\"unpaired\":111,\"preempt_seen\":22,\"preempt_filtered\":23,"
		  "\"preempt_below\":24,\"preempt_recorded\":25,"
		  "\"preempt_lost\":26},{\"cpu\":1,\"seen\":204,");
	CHECK_HAS(out, "],\"total\":{\"seen\":1104,");
	CHECK_HAS(out, "\"preempt_lost\":1026}}}\n");
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\naccounting of exits (seen = filtered + below + "
		  "recorded + lost):\n  cpu            seen     filtered "
		  "below_thresh     recorded         lost  overwritten"
		  "      drained     unpaired\n  0               104");
	CHECK_HAS(out, "\naccounting of preemptions (seen = filtered + below + "
		  "recorded + lost):\n  cpu            seen     filtered "
		  "below_thresh     recorded         lost\n"
		  "  0                22           23           24           25"
		  "           26\n  1               122");
	CHECK_HAS(out, "  total          1022         1023         1024"
		  "         1025         1026\n");
	free(out);
	return unit_report();
}
