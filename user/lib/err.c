// SPDX-License-Identifier: GPL-2.0
/* The error sink (err.h). No sink set: messages are dropped. */
#include <errno.h>
#include <stdio.h>

#include "err.h"

static hvc_err_sink err_sink;
static void *err_data;

void hvc_set_err_sink(hvc_err_sink sink, void *data)
{
	err_sink = sink;
	err_data = data;
}

void hvc_get_err_sink(hvc_err_sink *sink, void **data)
{
	*sink = err_sink;
	*data = err_data;
}

int hvc_verr(int err, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err_sink)
		err_sink(msg, err_data);
	return err > 0 ? -err : -EINVAL;
}

int hvc_err(int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = hvc_verr(err, fmt, ap);
	va_end(ap);
	return ret;
}
