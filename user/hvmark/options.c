// SPDX-License-Identifier: GPL-2.0
/* hvmark's command line: every bad argument named, nothing printed here. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "hvmark.h"

enum {
	OPT_NO_TRACE_MARKER = 256,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "count",		required_argument,	NULL, 'n' },
	{ "interval",		required_argument,	NULL, 'i' },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "no-trace-marker",	no_argument,		NULL, OPT_NO_TRACE_MARKER },
	{ "help",		no_argument,		NULL, OPT_HELP },
	{ "version",		no_argument,		NULL, OPT_VERSION },
	{ NULL,			0,			NULL, 0 },
};

/*
 * S as a u32: decimal, or hexadecimal after "0x". No sign, no blanks, no
 * junk (strtoull alone takes " -1" as 2^64 - 1).
 */
static int parse_u32(const char *s, uint32_t *v)
{
	unsigned long long n;
	const char *digits = s;
	char *end;
	int base = 10;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		digits = s + 2;
		base = 16;
	}
	if (!*digits || !strchr("0123456789abcdefABCDEF", *digits) ||
	    (base == 10 && (*digits < '0' || *digits > '9')))
		return -1;
	errno = 0;
	n = strtoull(digits, &end, base);
	if (errno || *end || n > UINT32_MAX)
		return -1;
	*v = n;
	return 0;
}

/*
 * The option getopt_long refused, as typed: a long one is the argument
 * it just passed ("--count", "--quiet=1"), a short one its letter.
 */
static const char *refused(char **argv)
{
	static char name[3];

	if (optind > 0 && !strncmp(argv[optind - 1], "--", 2))
		return argv[optind - 1];
	snprintf(name, sizeof(name), "-%c", optopt);
	return name;
}

int hvmark_parse(int argc, char **argv, struct hvmark_opts *o, char *err)
{
	const char *msg;
	int c;

	*o = (struct hvmark_opts){
		.action = HVMARK_RUN, .id = 1, .count = 1, .trace_marker = true,
	};
	optind = 0;	/* glibc: start over, as for a first call */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:i:q", long_opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u32(optarg, &o->count) || !o->count) {
				snprintf(err, HVMARK_ERR_LEN,
					 "-n: '%s' is not a count (1 to %" PRIu32 ")",
					 optarg, UINT32_MAX);
				return -1;
			}
			break;
		case 'i':
			if (duration_parse(optarg, &o->interval_ns, &msg)) {
				snprintf(err, HVMARK_ERR_LEN, "-i: %s", msg);
				return -1;
			}
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_NO_TRACE_MARKER:
			o->trace_marker = false;
			break;
		case OPT_HELP:
			o->action = HVMARK_HELP;
			return 0;
		case OPT_VERSION:
			o->action = HVMARK_VERSION;
			return 0;
		case ':':
			snprintf(err, HVMARK_ERR_LEN, "%s needs a value",
				 refused(argv));
			return -1;
		default:
			snprintf(err, HVMARK_ERR_LEN, "bad option '%s'",
				 refused(argv));
			return -1;
		}
	}
	if (optind < argc && parse_u32(argv[optind], &o->id)) {
		snprintf(err, HVMARK_ERR_LEN,
			 "ID: '%s' is not a mark id (0 to %" PRIu32 ")",
			 argv[optind], UINT32_MAX);
		return -1;
	}
	if (optind < argc)
		optind++;
	if (optind < argc) {
		snprintf(err, HVMARK_ERR_LEN, "one ID only: '%s' is one more",
			 argv[optind]);
		return -1;
	}
	if (o->count - 1 > UINT32_MAX - o->id) {
		snprintf(err, HVMARK_ERR_LEN,
			 "ID %" PRIu32 " and -n %" PRIu32 ": the last id would pass %" PRIu32,
			 o->id, o->count, UINT32_MAX);
		return -1;
	}
	return 0;
}
