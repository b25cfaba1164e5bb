// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl status: what the module is, whether it records, and the trust
 * accounting: per CPU, seen = filtered + below threshold + recorded +
 * lost, exactly, for exits and for preemption records apart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "hvctl.h"
#include "nl.h"
#include "output.h"

struct acct_field {
	unsigned int attr;
	const char *key;	/* JSON */
	const char *label;	/* text column */
};

static const struct acct_field exit_fields[] = {
	{ HVTRACE_ACCT_SEEN, "seen", "seen" },
	{ HVTRACE_ACCT_FILTERED, "filtered", "filtered" },
	{ HVTRACE_ACCT_BELOW, "below_threshold", "below_thresh" },
	{ HVTRACE_ACCT_RECORDED, "recorded", "recorded" },
	{ HVTRACE_ACCT_LOST, "lost", "lost" },
	{ HVTRACE_ACCT_OVERWRITTEN, "overwritten", "overwritten" },
	{ HVTRACE_ACCT_DRAINED, "drained", "drained" },
	{ HVTRACE_ACCT_UNPAIRED, "unpaired", "unpaired" },
};

/* Preemption records: the same identity, counted apart. */
static const struct acct_field preempt_fields[] = {
	{ HVTRACE_ACCT_PREEMPT_SEEN, "preempt_seen", "seen" },
	{ HVTRACE_ACCT_PREEMPT_FILTERED, "preempt_filtered", "filtered" },
	{ HVTRACE_ACCT_PREEMPT_BELOW, "preempt_below", "below_thresh" },
	{ HVTRACE_ACCT_PREEMPT_RECORDED, "preempt_recorded", "recorded" },
	{ HVTRACE_ACCT_PREEMPT_LOST, "preempt_lost", "lost" },
};

struct acct_set {
	const char *title;
	const struct acct_field *f;
	size_t n;
};

#define ACCT_SET(t, a) { t, a, sizeof(a) / sizeof((a)[0]) }

static const struct acct_set acct_sets[] = {
	ACCT_SET("exits (seen = filtered + below + recorded + lost)",
		 exit_fields),
	ACCT_SET("preemptions (seen = filtered + below + recorded + lost)",
		 preempt_fields),
};

#define N_SETS (sizeof(acct_sets) / sizeof(acct_sets[0]))

/*
 * One CPU's row, or with TOTAL the totals. JSON: every set in one object;
 * text: set ONLY, as each set is a table of its own.
 */
static void print_acct_row(const struct nlattr *nest, bool total,
			   const struct acct_set *only)
{
	const struct nlattr *tb[HVTRACE_ACCT_MAX + 1];
	char label[16] = "total";

	hvnl_parse_nested(nest, tb, HVTRACE_ACCT_MAX);
	out_open_object(total ? "total" : NULL);
	if (!total) {
		out_u64("cpu", NULL, hvnl_u32(tb[HVTRACE_ACCT_CPU]));
		snprintf(label, sizeof(label), "%u",
			 hvnl_u32(tb[HVTRACE_ACCT_CPU]));
	}
	if (!hvctl_json)
		printf("  %-6s", label);
	for (size_t s = 0; s < N_SETS; s++) {
		if (!hvctl_json && &acct_sets[s] != only)
			continue;
		for (size_t i = 0; i < acct_sets[s].n; i++)
			out_u64(acct_sets[s].f[i].key, " %12" PRIu64,
				hvnl_u64(tb[acct_sets[s].f[i].attr]));
	}
	if (!hvctl_json)
		putchar('\n');
	out_close_object();
}

/* Rows for each CPU, then the total (the nest's own attributes). */
static void print_acct_rows(const struct nlattr *acct,
			    const struct acct_set *only)
{
	const struct nlattr *a;

	out_open_array("cpus");
	mnl_attr_for_each_nested(a, acct)
		if (mnl_attr_get_type(a) == HVTRACE_ACCT_CPU_NEST)
			print_acct_row(a, false, only);
	out_close_array();
	print_acct_row(acct, true, only);
}

static void print_accounting(const struct nlattr *acct)
{
	if (!acct)
		return;
	if (hvctl_json) {
		print_acct_rows(acct, NULL);
		return;
	}
	for (size_t s = 0; s < N_SETS; s++) {
		printf("\naccounting of %s:\n  %-6s", acct_sets[s].title,
		       "cpu");
		for (size_t i = 0; i < acct_sets[s].n; i++)
			printf(" %12.12s", acct_sets[s].f[i].label);
		putchar('\n');
		print_acct_rows(acct, &acct_sets[s]);
	}
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
