/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness printing TAP: every CHECK is one result,
 * "ok N - FILE:LINE: EXPR" or "not ok N - FILE:LINE: EXPR" with what was
 * wrong on "# " lines after it, and the run goes on, so one run shows all
 * that is wrong.  Each test program ends with `return unit_report();`,
 * which prints the plan "1..N" (after the results: a program that dies
 * before has none) and "# <prog>: N passed, N failed".  tests/unit/
 * Makefile's run joins the programs into one TAP stream, renumbered.
 *
 * Header-only: each test is a single translation unit.
 */
#ifndef HVTRACE_UNIT_H
#define HVTRACE_UNIT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const char *__progname;

static unsigned int unit_passed, unit_failed;
/*
 * The TAP goes to a copy of the first stdout: tests capture stdout (the
 * command's output), the results must not land there. Line-buffered: a
 * program that crashes keeps the results before.
 */
static FILE *unit_out;

__attribute__((constructor, unused))
static void unit_start(void)
{
	int fd = dup(STDOUT_FILENO);

	unit_out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!unit_out)
		unit_out = stdout;
	setvbuf(unit_out, NULL, _IOLBF, 0);
}

/* FMT's explanation, each of its lines as a TAP diagnostic "# ...". */
__attribute__((unused))
static void unit_diag(const char *fmt, va_list ap)
{
	char *msg = NULL, *p, *nl;
	int n;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	for (p = msg; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(unit_out, "#   %.*s\n", n, p);
	}
	free(msg);
}

/* One result: "ok N - FILE:LINE[: EXPR]", or "not ok" and FMT's why. */
__attribute__((format(printf, 5, 0), unused))
static bool unit_vcheck(bool ok, const char *file, int line, const char *expr,
			const char *fmt, va_list ap)
{
	fprintf(unit_out, "%sok %u - %s:%d%s%s\n", ok ? "" : "not ", unit_passed +
	       unit_failed + 1, file, line, expr ? ": " : "", expr ? expr : "");
	if (ok) {
		unit_passed++;
		return true;
	}
	unit_failed++;
	unit_diag(fmt, ap);
	return false;
}

/* What the CHECK macros use: EXPR is the check's source text. */
__attribute__((format(printf, 5, 6), unused))
static bool unit_check_expr(bool ok, const char *file, int line,
			    const char *expr, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = unit_vcheck(ok, file, line, expr, fmt, ap);
	va_end(ap);
	return r;
}

/* A test's own check helper, named by its caller's FILE:LINE. */
#define unit_check(ok, file, line, ...)					\
	unit_check_expr(ok, file, line, NULL, __VA_ARGS__)

/* NULL-safe string equality for CHECK_STR. */
__attribute__((unused))
static bool unit_streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

#define CHECK(cond)							\
	unit_check_expr(!!(cond), __FILE__, __LINE__, #cond, "%s", #cond)

/* Like CHECK, with a printf-style explanation on failure. */
#define CHECK_MSG(cond, ...)						\
	unit_check_expr(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

#define CHECK_INT(a, b)	do {						\
	long long _a = (a), _b = (b);					\
	unit_check_expr(_a == _b, __FILE__, __LINE__, #a " == " #b,	\
		   "%s == %s: %lld != %lld", #a, #b, _a, _b);		\
} while (0)

#define CHECK_U64(a, b)	do {						\
	uint64_t _a = (a), _b = (b);					\
	unit_check_expr(_a == _b, __FILE__, __LINE__, #a " == " #b,	\
		   "%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, _a, _b); \
} while (0)

#define CHECK_STR(a, b)	do {						\
	const char *_a = (a), *_b = (b);				\
	unit_check_expr(unit_streq(_a, _b), __FILE__, __LINE__,		\
		   #a " == " #b,						\
		   "%s == %s: \"%s\" != \"%s\"", #a, #b,		\
		   _a ? _a : "(null)", _b ? _b : "(null)");		\
} while (0)

/* Print the tally; the exit status of the test program. */
__attribute__((unused))
static int unit_report(void)
{
	fprintf(unit_out, "1..%u\n", unit_passed + unit_failed);
	fprintf(unit_out, "# %s: %u passed, %u failed\n", __progname,
		unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

/* HAYSTACK contains NEEDLE; shows both when not. */
#define CHECK_HAS(haystack, needle)					\
	unit_check_expr(strstr((haystack), (needle)) != NULL, __FILE__,	\
		   __LINE__, "CHECK_HAS(" #haystack ", " #needle ")",	\
		   "no \"%s\" in:\n%s", (needle), (haystack))

#define CHECK_HASNT(haystack, needle)					\
	unit_check_expr(strstr((haystack), (needle)) == NULL, __FILE__,	\
		   __LINE__, "CHECK_HASNT(" #haystack ", " #needle ")",	\
		   "unwanted \"%s\" in:\n%s", (needle), (haystack))

#endif /* HVTRACE_UNIT_H */
