// SPDX-License-Identifier: GPL-2.0
/* hvctl config: the threshold settings of ABI 2, in text and JSON. */
#include "fake_nl.h"

static void put_config(uint8_t on, uint8_t halt, uint64_t preempt_ns)
{
	struct nlmsghdr *nlh;
	struct nlattr *c, *r;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_CONFIG);
	c = mnl_attr_nest_start(nlh, HVTRACE_A_CONFIG);
	mnl_attr_put_u64(nlh, HVTRACE_CFG_THRESHOLD_NS, 50000);
	r = mnl_attr_nest_start(nlh, HVTRACE_CFG_REASON_THRESHOLD);
	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, HVTRACE_ISA_SVM);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, 0x400);	/* NPF */
	mnl_attr_put_u64(nlh, HVTRACE_RSN_THRESHOLD_NS, 1000);
	mnl_attr_nest_end(nlh, r);
	mnl_attr_put_u32(nlh, HVTRACE_CFG_BUFFER_KB, 2048);
	mnl_attr_put_u8(nlh, HVTRACE_CFG_THRESHOLD_ON, on);
	mnl_attr_put_u8(nlh, HVTRACE_CFG_HALT_TRIGGERS, halt);
	mnl_attr_put_u64(nlh, HVTRACE_CFG_PREEMPT_THRESHOLD_NS, preempt_ns);
	mnl_attr_nest_end(nlh, c);
}

int main(void)
{
	char *out;

	put_config(HVTRACE_ON_RUNNABLE, 1, 2000000);
	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "{\"threshold_ns\":50000,\"threshold_on\":\"preempted\","
		  "\"halt_triggers\":true,\"preempt_threshold_ns\":2000000,");
	CHECK_HAS(out, "\"reason_thresholds\":[{\"isa\":\"svm\",\"code\":1024,"
		  "\"reason\":\"NPF\",\"threshold_ns\":1000}]");
	free(out);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "threshold:         50.0us\n"
		  "threshold on:      preempted\n"
		  "halt triggers:     yes\n"
		  "preempt threshold: 2.00ms\n"
		  "reason thresholds:\n"
		  "    svm NPF (0x400): 1.0us\n"
		  "filters:\n"
		  "  pid              any\n"
		  "  vcpu             any\n");
	free(out);

	put_config(HVTRACE_ON_TOTAL, 0, 0);
	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "\"threshold_on\":\"total\",\"halt_triggers\":false,"
		  "\"preempt_threshold_ns\":0,");
	free(out);

	/* A newer module's part hvctl cannot name. */
	put_config(HVTRACE_ON_MAX + 1, 0, 0);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "threshold on:      ?\n");
	free(out);
	return unit_report();
}
