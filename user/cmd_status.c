// SPDX-License-Identifier: GPL-2.0
/* hvctl status: what the module is and what it has seen. */
#include <inttypes.h>
#include <stdio.h>

#include <linux/hvtrace.h>

#include "hvctl.h"
#include "nl.h"
#include "output.h"

static uint64_t attr_u64(const struct nlattr *a)
{
	return a ? mnl_attr_get_u64(a) : 0;
}

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_STATUS_MAX + 1];

	(void)data;
	if (hvnl_parse(nlh, tb, HVTRACE_A_STATUS_MAX) < 0)
		return MNL_CB_ERROR;

	out_open_object(NULL);
	out_str("version", "hvtrace %s",
		tb[HVTRACE_A_STATUS_VERSION] ?
		mnl_attr_get_str(tb[HVTRACE_A_STATUS_VERSION]) : "?");
	out_u64("abi", " (netlink ABI %" PRIu64 ")\n",
		tb[HVTRACE_A_STATUS_ABI] ?
		mnl_attr_get_u32(tb[HVTRACE_A_STATUS_ABI]) : 0);
	out_u64("nr_cpus", "  cpus:          %" PRIu64 "\n",
		tb[HVTRACE_A_STATUS_NR_CPUS] ?
		mnl_attr_get_u32(tb[HVTRACE_A_STATUS_NR_CPUS]) : 0);
	out_u64("exits_seen", "  exits seen:    %" PRIu64 "\n",
		attr_u64(tb[HVTRACE_A_STATUS_EXITS_SEEN]));
	out_u64("entries_seen", "  entries seen:  %" PRIu64 "\n",
		attr_u64(tb[HVTRACE_A_STATUS_ENTRIES_SEEN]));
	out_close_object();
	return MNL_CB_OK;
}

static int status_run(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;
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
	req = hvnl_request(nl, buf, HVTRACE_CMD_GET_STATUS, 0);
	ret = hvnl_talk(nl, req, status_cb, NULL);
	hvnl_close(nl);
	out_end();
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_status = {
	.name = "status",
	.run = status_run,
	.usage = "",
	.summary = "show the module's version and state (the default)",
};
