/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counts as every option and configuration key takes them: strict
 * decimal, no sign, no spaces, no wrap. One parser for hvctl's option
 * table (opts.c) and hvtrace.conf (config_file.c).
 */
#ifndef HVCTL_NUMBER_H
#define HVCTL_NUMBER_H

#include <stdint.h>

/* Decimal digits only into *V: 0, -EINVAL or -ERANGE; nothing reported. */
int hvc_parse_decimal(const char *s, uint64_t *v);

/*
 * The count V typed for NAME ("--history", "watch.history"), from MIN to
 * MAX into *OUT: 0, or -EINVAL with a message naming NAME and V.
 */
int hvc_parse_count(const char *name, const char *v, uint64_t min,
		    uint64_t max, uint64_t *out);

#endif /* HVCTL_NUMBER_H */
