// SPDX-License-Identifier: GPL-2.0
/* hvctl buffer: ring size and mode (only while stopped), one change. */
#include "client.h"
#include "hvctl.h"

static int buffer_size_opt(void *ch, const char *opt, const char *v)
{
	int ret = hvc_change_buffer_size(ch, opt, v);

	return ret ? hvctl_change_err(&hvctl_cmd_buffer, ret) : 0;
}

static int buffer_mode_opt(void *ch, const char *opt, const char *v)
{
	int ret = hvc_change_mode(ch, opt, v);

	return ret ? hvctl_change_err(&hvctl_cmd_buffer, ret) : 0;
}

static const struct hvctl_opt buffer_opts[] = {
	OPT_CALL("--size", buffer_size_opt, NULL),
	OPT_CALL("--mode", buffer_mode_opt, "discard overwrite"),
	OPT_END,
};

static int buffer_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_buffer;
	struct hvc_change ch = { 0 };
	int n, ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	ret = hvctl_parse_opts(cmd, argc, argv, &ch, &n);
	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 0);
	if (ret)
		return ret;
	if (!ch.set)
		return hvctl_usage_err(cmd, "nothing to change");
	return hvc_apply(&ch) ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_buffer = {
	.name = "buffer",
	.run = buffer_run,
	.usage = "[--size SIZE] [--mode discard|overwrite]",
	.opts = buffer_opts,
	.summary = "set the ring size per CPU (KiB, or with K/M/G) and mode;\n"
		   "only while stopped",
};
