/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl_err() for tests that link pieces of hvctl without hvctl.c (the
 * trace writer reports through it). Include from one file per program.
 */
#ifndef HVTRACE_STUB_ERR_H
#define HVTRACE_STUB_ERR_H

#include <stdarg.h>
#include <stdio.h>

int hvctl_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

#endif /* HVTRACE_STUB_ERR_H */
