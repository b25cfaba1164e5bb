/* SPDX-License-Identifier: GPL-2.0 */
/* Durations on the command line and in output, in nanoseconds. */
#ifndef HVCTL_DURATION_H
#define HVCTL_DURATION_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse "50us", "1.5ms", "200ns", "2s" or a bare "0"; the unit (ns, us, ms
 * or s, lower case) is required otherwise.  Exact integer arithmetic:
 * "1.5ms" is 1500000.  Rejects signs, spaces, junk, values beyond
 * UINT64_MAX ns and fractions finer than 1ns ("1.5ns"; "1.0ns" is fine).
 * On error returns -1 and points *ERR at a message naming the problem,
 * valid until the next call from the same thread.
 */
int duration_parse(const char *s, uint64_t *ns, const char **err);

/*
 * Format NS with the largest unit that keeps the number >= 1, with a
 * fixed number of decimals per unit (ns 0, us 1, ms 2, s 3), rounded half
 * up: "85ns", "312.4us", "1.50ms", "2.000s".  Snprintf semantics.
 */
int duration_format(char *buf, size_t len, uint64_t ns);

/*
 * duration_format()'s text at P, not terminated, without snprintf (a
 * dump's text line holds seven durations): returns its end. At most
 * DURATION_MAX bytes, and put_u64()'s PUT_SLACK (put.h) past them.
 */
char *duration_put(char *p, uint64_t ns);

/*
 * NS as one would type it, exactly: the largest unit that divides it
 * ("10ms", "1500us", "7ns"), for limits in messages. Snprintf semantics.
 */
int duration_exact(char *buf, size_t len, uint64_t ns);

/* The longest text: UINT64_MAX ns is "18446744073.710s". */
#define DURATION_MAX 16

/* Room for the duration_format() text of every duration up to 31 years. */
#define DURATION_LEN 16

/* duration_format() into BUF of DURATION_LEN bytes, returned: for printf. */
static inline const char *duration_str(char *buf, uint64_t ns)
{
	duration_format(buf, DURATION_LEN, ns);
	return buf;
}

/* NS as a setting is written ("50ms"), into BUF (DURATION_LEN). */
static inline const char *duration_exact_str(char *buf, uint64_t ns)
{
	duration_exact(buf, DURATION_LEN, ns);
	return buf;
}

#endif /* HVCTL_DURATION_H */
