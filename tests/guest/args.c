// SPDX-License-Identifier: GPL-2.0
/* Command-line errors and numbers of the test programs (see args.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"

void __noreturn args_vfail(bool usage, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (usage)
		fputs(usage_line, stderr);
	exit(EXIT_USAGE);
}

void __noreturn usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	args_vfail(true, fmt, ap);
}

void __noreturn bad_option(int c, char **argv)
{
	if (c == ':')
		usage_error("option '%s' needs an argument", argv[optind - 1]);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

void no_operands(int argc, char **argv)
{
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

uint64_t parse_num(const char **sp, const char *opt, const char *what,
		   uint64_t min, uint64_t max)
{
	const char *s = *sp;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]) || (hex && !isxdigit((unsigned char)s[2])))
		usage_error("--%s: %s '%s' is not a number", opt, what, s);
	errno = 0;
	v = strtoull(s, &end, hex ? 16 : 10);
	if (errno || (*end && *end != ':' && *end != ','))
		usage_error("--%s: %s '%s' is not a number", opt, what, s);
	if ((v < min || v > max) && hex)
		usage_error("--%s: %s 0x%llx out of range 0x%" PRIx64 "..0x%" PRIx64,
			    opt, what, v, min, max);
	if (v < min || v > max)
		usage_error("--%s: %s %llu out of range %" PRIu64 "..%" PRIu64,
			    opt, what, v, min, max);
	*sp = end;
	return v;
}

uint64_t parse_arg(const char *s, const char *opt, const char *what,
		   uint64_t min, uint64_t max)
{
	uint64_t v = parse_num(&s, opt, what, min, max);

	if (*s)
		usage_error("--%s: trailing garbage '%s'", opt, s);
	return v;
}
