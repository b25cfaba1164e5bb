/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness: CHECK macros count every check, print the
 * failing ones with file:line and keep going, so one run shows all that is
 * wrong.  Each test program ends with `return unit_report();`, which
 * prints "<prog>: N passed, N failed" and a machine-readable
 * "UNIT-RESULT <passed> <failed>" line that tests/unit/Makefile adds up.
 *
 * Header-only: each test is a single translation unit.
 */
#ifndef HVTRACE_UNIT_H
#define HVTRACE_UNIT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern const char *__progname;

static unsigned int unit_passed, unit_failed;

__attribute__((format(printf, 4, 5), unused))
static bool unit_check(bool ok, const char *file, int line,
		       const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		unit_passed++;
		return true;
	}
	unit_failed++;
	fprintf(stderr, "%s:%d: FAILED: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}

/* NULL-safe string equality for CHECK_STR. */
__attribute__((unused))
static bool unit_streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

#define CHECK(cond)							\
	unit_check(!!(cond), __FILE__, __LINE__, "%s", #cond)

/* Like CHECK, with a printf-style explanation on failure. */
#define CHECK_MSG(cond, ...)						\
	unit_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define CHECK_INT(a, b)	do {						\
	long long _a = (a), _b = (b);					\
	unit_check(_a == _b, __FILE__, __LINE__,			\
		   "%s == %s: %lld != %lld", #a, #b, _a, _b);		\
} while (0)

#define CHECK_U64(a, b)	do {						\
	uint64_t _a = (a), _b = (b);					\
	unit_check(_a == _b, __FILE__, __LINE__,			\
		   "%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, _a, _b); \
} while (0)

#define CHECK_STR(a, b)	do {						\
	const char *_a = (a), *_b = (b);				\
	unit_check(unit_streq(_a, _b), __FILE__, __LINE__,		\
		   "%s == %s: \"%s\" != \"%s\"", #a, #b,		\
		   _a ? _a : "(null)", _b ? _b : "(null)");		\
} while (0)

/* Print the tally; the exit status of the test program. */
__attribute__((unused))
static int unit_report(void)
{
	printf("%s: %u passed, %u failed\n", __progname, unit_passed,
	       unit_failed);
	printf("UNIT-RESULT %u %u\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif /* HVTRACE_UNIT_H */
