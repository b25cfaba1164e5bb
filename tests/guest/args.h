/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line errors and numbers, shared by the test programs (hvguest,
 * hvhog).  Each program defines prog_name and usage_line.
 */
#ifndef _HVT_GUEST_ARGS_H
#define _HVT_GUEST_ARGS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

#define EXIT_USAGE	2

extern const char prog_name[];		/* "hvguest" */
extern const char usage_line[];		/* "usage: ...\n" */

/* "PROG: MESSAGE" on stderr, then the usage line if USAGE; exit 2. */
void __noreturn args_vfail(bool usage, const char *fmt, va_list ap);
void __noreturn __printf(1, 2) usage_error(const char *fmt, ...);

/*
 * getopt_long() with ":..." optstring and opterr = 0: after the options'
 * cases, bad_option() turns ':' (no argument) or anything else into a
 * usage error; no_operands() rejects what follows the options.
 */
void __noreturn bad_option(int c, char **argv);
void no_operands(int argc, char **argv);

/*
 * A decimal or 0x-hex number in min..max at *sp, ending at '\0', ':' or
 * ',' (leading zeros do not mean octal); advances *sp past it.  opt names
 * the option (without "--"), what the field, in the error messages.
 */
uint64_t parse_num(const char **sp, const char *opt, const char *what,
		   uint64_t min, uint64_t max);
/* The same, for an argument that is one number and nothing else. */
uint64_t parse_arg(const char *s, const char *opt, const char *what,
		   uint64_t min, uint64_t max);

#endif /* _HVT_GUEST_ARGS_H */
