// SPDX-License-Identifier: GPL-2.0
/*
 * The generators' error sink (err.h), as hvctl's: the trace writer's
 * errors print "Error: <msg>." on standard error.
 */
#include <stdio.h>

#include "err.h"

static void print_err(const char *msg, void *data)
{
	(void)data;
	fprintf(stderr, "Error: %s.\n", msg);
}

__attribute__((constructor))
static void set_sink(void)
{
	hvc_set_err_sink(print_err, NULL);
}
