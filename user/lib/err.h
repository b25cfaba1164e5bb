/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one error sink of hvctl's layers. Library and trace code never
 * print an error: they hand the message to the sink and return a
 * negative errno. hvctl's sink prints "Error: <msg>."; tests capture.
 */
#ifndef HVCTL_ERR_H
#define HVCTL_ERR_H

#include <stdarg.h>

/* Receives every message, without "Error: " or a full stop. */
typedef void (*hvc_err_sink)(const char *msg, void *data);
void hvc_set_err_sink(hvc_err_sink sink, void *data);
/* The sink set now, to put back after a call whose errors are kept. */
void hvc_get_err_sink(hvc_err_sink *sink, void **data);

/* Hand a message to the sink; returns -ERR (ERR a positive errno). */
int hvc_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hvc_verr(int err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* HVCTL_ERR_H */
