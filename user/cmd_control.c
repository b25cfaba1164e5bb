// SPDX-License-Identifier: GPL-2.0
/* hvctl start, stop, clear: commands without arguments. */
#include <stdio.h>

#include <linux/hvtrace.h>

#include "hvctl.h"
#include "nl.h"

static int control(const struct hvctl_cmd *cmd, uint8_t nlcmd, int argc,
		   char **argv)
{
	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	if (argc > 1)
		return hvctl_usage_err(cmd, "unexpected argument '%s'", argv[1]);
	return hvnl_simple(nlcmd) ? 1 : 0;
}

static int start_run(int argc, char **argv)
{
	return control(&hvctl_cmd_start, HVTRACE_CMD_START, argc, argv);
}

static int stop_run(int argc, char **argv)
{
	return control(&hvctl_cmd_stop, HVTRACE_CMD_STOP, argc, argv);
}

static int clear_run(int argc, char **argv)
{
	return control(&hvctl_cmd_clear, HVTRACE_CMD_CLEAR, argc, argv);
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
