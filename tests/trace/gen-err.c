// SPDX-License-Identifier: GPL-2.0
/*
 * What the generators link in place of hvctl.c: trace_write.c reports
 * through hvctl_err().
 */
#include <stdarg.h>
#include <stdio.h>

#include "hvctl.h"

int hvctl_err(const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(".\n", stderr);
	return 1;
}
