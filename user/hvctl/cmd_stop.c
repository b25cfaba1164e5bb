// SPDX-License-Identifier: GPL-2.0
/* hvctl stop: one call to the module, no arguments. */
#include "client.h"
#include "hvctl.h"

static int stop_run(int argc, char **argv)
{
	return hvctl_run_call(&hvctl_cmd_stop, hvc_stop, argc, argv);
}

const struct hvctl_cmd hvctl_cmd_stop = {
	.name = "stop",
	.run = stop_run,
	.usage = "",
	.summary = "stop recording (aggregates go on)",
};
