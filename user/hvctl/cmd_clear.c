// SPDX-License-Identifier: GPL-2.0
/* hvctl clear: one call to the module, no arguments. */
#include "client.h"
#include "hvctl.h"

static int clear_run(int argc, char **argv)
{
	return hvctl_run_call(&hvctl_cmd_clear, hvc_clear, argc, argv);
}

const struct hvctl_cmd hvctl_cmd_clear = {
	.name = "clear",
	.run = clear_run,
	.usage = "",
	.summary = "zero aggregates and accounting, drop buffered events\n"
		   "(refused while a reader, e.g. hvctl record, drains)",
};
