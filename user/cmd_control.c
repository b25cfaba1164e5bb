// SPDX-License-Identifier: GPL-2.0
/* hvctl start, stop, clear: commands without arguments. */
#include <stdio.h>

#include "client.h"
#include "hvctl.h"

static int control(const struct hvctl_cmd *cmd, int (*call)(struct hvc *),
		   int argc, char **argv)
{
	struct hvc *c;
	int ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	if (hvctl_no_args(cmd, argc, argv))
		return 2;
	if (hvc_open(&c))
		return 1;
	ret = call(c);
	hvc_close(c);
	return ret ? 1 : 0;
}

static int start_run(int argc, char **argv)
{
	return control(&hvctl_cmd_start, hvc_start, argc, argv);
}

static int stop_run(int argc, char **argv)
{
	return control(&hvctl_cmd_stop, hvc_stop, argc, argv);
}

static int clear_run(int argc, char **argv)
{
	return control(&hvctl_cmd_clear, hvc_clear, argc, argv);
}

const struct hvctl_cmd hvctl_cmd_start = {
	.name = "start",
	.run = start_run,
	.usage = "",
	.summary = "start recording exits at or above their threshold",
};

const struct hvctl_cmd hvctl_cmd_stop = {
	.name = "stop",
	.run = stop_run,
	.usage = "",
	.summary = "stop recording (aggregates go on)",
};

const struct hvctl_cmd hvctl_cmd_clear = {
	.name = "clear",
	.run = clear_run,
	.usage = "",
	.summary = "zero aggregates and accounting, drop buffered events\n"
		   "(refused while a reader, e.g. hvctl record, drains)",
};
