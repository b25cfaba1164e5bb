// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl filter: which exits may be recorded. Each kind given replaces
 * that kind only; "any" lifts it; "clear" lifts them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "hvctl.h"

static int filter_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_filter;
	struct hvc_change ch = { 0 };
	int ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	/* No options: KIND VALUE pairs ("pid -1" is a pair, refused by pid). */
	ret = hvctl_parse_opts(cmd, argc, argv, NULL, &argc);
	if (ret)
		return ret;
	argc++;
	if (argc < 2)
		return hvctl_usage_err(cmd, "nothing to filter on");
	if (!strcmp(argv[1], "clear")) {
		if (argc > 2)
			return hvctl_usage_err(cmd, "'clear' takes no value");
		ch.set |= HVC_CH_CLEAR_FILTERS;
	}
	if (argc % 2 == 0 && !(ch.set & HVC_CH_CLEAR_FILTERS))
		return hvctl_usage_err(cmd, "'%s' needs a value",
				       argv[argc - 1]);
	/* Every kind and value checked before the module hears of any. */
	for (int i = 1; i + 1 < argc; i += 2) {
		ret = hvc_change_filter(&ch, argv[i], argv[i], argv[i + 1]);
		if (ret == -ENOENT)
			return hvctl_usage_err(cmd, "unknown filter '%s'",
					       argv[i]);
		if (ret)
			return hvctl_change_err(cmd, ret);
	}
	return hvc_apply(&ch) ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_filter = {
	.name = "filter",
	.run = filter_run,
	.usage = "[pid PID|any] [vcpu LIST|any] [reason NAMES|any]\n"
		 "                  [rip MIN-MAX|any] [cpu LIST|any] | clear",
	.args = "pid vcpu reason rip cpu any clear",
	.summary = "record only exits of that VMM pid, vCPUs, exit reasons,\n"
		   "guest RIP range or host CPUs (LIST: 0,2-5; NAMES: npf,io)",
};
