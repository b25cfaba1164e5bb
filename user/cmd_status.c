// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl status: what the module is, whether it records, and the trust
 * accounting: per CPU, seen = filtered + below threshold + recorded +
 * lost, exactly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "hvctl.h"
#include "nl.h"
#include "output.h"

static const struct {
	unsigned int attr;
	const char *key;
} acct_fields[] = {
	{ HVTRACE_ACCT_SEEN, "seen" },
	{ HVTRACE_ACCT_FILTERED, "filtered" },
	{ HVTRACE_ACCT_BELOW, "below_threshold" },
	{ HVTRACE_ACCT_RECORDED, "recorded" },
	{ HVTRACE_ACCT_LOST, "lost" },
	{ HVTRACE_ACCT_OVERWRITTEN, "overwritten" },
	{ HVTRACE_ACCT_DRAINED, "drained" },
	{ HVTRACE_ACCT_UNPAIRED, "unpaired" },
};

#define N_ACCT (sizeof(acct_fields) / sizeof(acct_fields[0]))

static void print_acct_row(const struct nlattr **tb, const char *label)
{
	if (!hvctl_json)
		printf("  %-6s", label);
	for (size_t i = 0; i < N_ACCT; i++)
		out_u64(acct_fields[i].key, " %12" PRIu64,
			hvnl_u64(tb[acct_fields[i].attr]));
	if (!hvctl_json)
		putchar('\n');
}

static void print_accounting(const struct nlattr *acct)
{
	const struct nlattr *tb[HVTRACE_ACCT_MAX + 1];
	const struct nlattr *cpu_tb[HVTRACE_ACCT_MAX + 1];
	const struct nlattr *a;
	char label[16];

	if (!acct || hvnl_parse_nested(acct, tb, HVTRACE_ACCT_MAX) < 0)
		return;
	if (!hvctl_json) {
		printf("\naccounting (seen = filtered + below + recorded + lost):\n");
		printf("  %-6s", "cpu");
		for (size_t i = 0; i < N_ACCT; i++)
			printf(" %12.12s", acct_fields[i].key);
		putchar('\n');
	}
	out_open_array("cpus");
	mnl_attr_for_each_nested(a, acct) {
		if (mnl_attr_get_type(a) != HVTRACE_ACCT_CPU_NEST)
			continue;
		hvnl_parse_nested(a, cpu_tb, HVTRACE_ACCT_MAX);
		out_open_object(NULL);
		out_u64("cpu", NULL, hvnl_u32(cpu_tb[HVTRACE_ACCT_CPU]));
		snprintf(label, sizeof(label), "%u",
			 hvnl_u32(cpu_tb[HVTRACE_ACCT_CPU]));
		print_acct_row(cpu_tb, label);
		out_close_object();
	}
	out_close_array();
	out_open_object("total");
	print_acct_row(tb, "total");
	out_close_object();
}

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const char *vendor;

	(void)data;
	if (hvnl_parse(nlh, tb, HVTRACE_A_MAX) < 0)
		return MNL_CB_ERROR;
	vendor = hvnl_str(tb[HVTRACE_A_VENDOR]);

	out_open_object(NULL);
	out_str("version", "hvtrace %s", hvnl_str(tb[HVTRACE_A_VERSION]));
	out_u64("abi", " (netlink ABI %" PRIu64 ")\n",
		hvnl_u32(tb[HVTRACE_A_ABI]));
	out_str("recording", "  recording:     %s\n",
		hvnl_u8(tb[HVTRACE_A_RECORDING]) ? "on" : "off");
	out_str("vendor", "  exit reasons:  %s\n",
		*vendor ? vendor : "unavailable (no kvm_amd/kvm_intel)");
	out_u64("nr_cpus", "  cpus:          %" PRIu64 "\n",
		hvnl_u32(tb[HVTRACE_A_NR_CPUS]));
	out_str("reader", "  reader:        %s\n",
		hvnl_u8(tb[HVTRACE_A_READER]) ? "draining" : "none");
	out_u64("exits_seen", "  exits seen:    %" PRIu64 "\n",
		hvnl_u64(tb[HVTRACE_A_EXITS_SEEN]));
	out_u64("entries_seen", "  entries seen:  %" PRIu64 "\n",
		hvnl_u64(tb[HVTRACE_A_ENTRIES_SEEN]));
	out_open_object("accounting");
	print_accounting(tb[HVTRACE_A_ACCT]);
	out_close_object();
	out_close_object();
	return MNL_CB_OK;
}

static int status_run(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hvnl *nl;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_status, argc, argv))
		return 0;
	if (argc > 1)
		return hvctl_usage_err(&hvctl_cmd_status,
				       "unexpected argument '%s'", argv[1]);
	nl = hvnl_open();
	if (!nl)
		return 1;
	ret = hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_GET_STATUS, 0),
			status_cb, NULL);
	hvnl_close(nl);
	out_end();
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_status = {
	.name = "status",
	.run = status_run,
	.usage = "",
	.summary = "show the module's state and the event accounting (the default)",
};
