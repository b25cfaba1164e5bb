// SPDX-License-Identifier: GPL-2.0
/*
 * What every command shares: the global options' state, errors (through
 * the library's one sink, err.h, so tests capture the CLI's messages and
 * the library's alike), usage lines, --help, and commands that are one
 * call to the module.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "hvctl.h"
#include "output.h"

bool hvctl_json;

int hvctl_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hvc_verr(EINVAL, fmt, ap);
	va_end(ap);
	return 1;
}

static void print_usage(FILE *f, const struct hvctl_cmd *cmd)
{
	fprintf(f, "Usage: hvctl [-j] %s%s%s\n", cmd->name,
		*cmd->usage ? " " : "", cmd->usage);
}

int hvctl_usage_err(const struct hvctl_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hvc_verr(EINVAL, fmt, ap);
	va_end(ap);
	return hvctl_usage(cmd);
}

int hvctl_usage(const struct hvctl_cmd *cmd)
{
	print_usage(stderr, cmd);
	return 2;
}

void hvctl_cmd_help(const struct hvctl_cmd *cmd)
{
	print_usage(stdout, cmd);
	printf("\n%s.\n", cmd->summary);
}

/* Read as the parser reads: "-o --help" is a directory named --help. */
bool hvctl_want_help(const struct hvctl_cmd *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const struct hvctl_opt *o;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			hvctl_cmd_help(cmd);
			return true;
		}
		if (!hvctl_is_option(argv[i]) || strchr(argv[i], '='))
			continue;
		o = hvctl_find_opt(cmd, argv[i]);
		if (o && hvctl_opt_has_value(o))
			i++;
	}
	return false;
}

int hvctl_run_call(const struct hvctl_cmd *cmd, int (*call)(struct hvc *),
		   int argc, char **argv)
{
	struct hvc *c;
	int ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	if (hvctl_no_args(cmd, argc, argv))
		return 2;
	if (hvc_open(&c))
		return 1;
	ret = call(c);
	hvc_close(c);
	return ret ? 1 : 0;
}

int hvctl_check_stdout(void)
{
	int err = out_check_stdout();

	if (err)
		return hvctl_err("writing standard output: %s", strerror(-err));
	return 0;
}
