// SPDX-License-Identifier: GPL-2.0
/* hvctl start: one call to the module, no arguments. */
#include "client.h"
#include "hvctl.h"

static int start_run(int argc, char **argv)
{
	return hvctl_run_call(&hvctl_cmd_start, hvc_start, argc, argv);
}

const struct hvctl_cmd hvctl_cmd_start = {
	.name = "start",
	.run = start_run,
	.usage = "",
	.summary = "start recording exits at or above their threshold",
};
