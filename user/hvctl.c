// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl: controller for the hvtrace kernel module. A dispatcher over a
 * table of subcommands, each in its own file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hvctl.h"
#include "output.h"

bool hvctl_json;

static const struct hvctl_cmd *const commands[] = {
	&hvctl_cmd_status,
	&hvctl_cmd_config,
	&hvctl_cmd_set_threshold,
	&hvctl_cmd_filter,
	&hvctl_cmd_buffer,
	&hvctl_cmd_start,
	&hvctl_cmd_stop,
	&hvctl_cmd_clear,
	&hvctl_cmd_stat,
	&hvctl_cmd_drain,
	&hvctl_cmd_record,
	&hvctl_cmd_report,
	&hvctl_cmd_dump,
	&hvctl_cmd_export,
	&hvctl_cmd_reasons,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void verr(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("Error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(".\n", stderr);
}

int hvctl_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(fmt, ap);
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
	verr(fmt, ap);
	va_end(ap);
	print_usage(stderr, cmd);
	return 2;
}

/* The option ARG names, and its "=VALUE" in *EQ (NULL: none). */
static const struct hvctl_opt *find_opt(const struct hvctl_opt *o,
					const char *arg, const char **eq)
{
	for (; o->name; o++) {
		size_t n = strlen(o->name);

		if (strncmp(arg, o->name, n))
			continue;
		*eq = arg[n] == '=' ? arg + n + 1 : NULL;
		if (!arg[n] || (arg[n] == '=' && o->value))
			return o;
	}
	return NULL;
}

int hvctl_dir_and_options(const struct hvctl_cmd *cmd, int argc, char **argv,
			  const struct hvctl_opt *opts, const char **dir)
{
	*dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		const struct hvctl_opt *o;

		if (a[0] != '-' || !a[1]) {
			if (*dir)
				return hvctl_usage_err(cmd, "unexpected argument '%s'",
						       a);
			*dir = a;
			continue;
		}
		o = find_opt(opts, a, &v);
		if (!o)
			return hvctl_usage_err(cmd, "unknown option '%s'", a);
		if (!o->value) {
			*o->flag = true;
			continue;
		}
		if (!v && i + 1 == argc)
			return hvctl_usage_err(cmd, "%s needs a value", a);
		*o->value = v ? v : argv[++i];
	}
	if (!*dir)
		return hvctl_usage_err(cmd, "no trace directory");
	return 0;
}

bool hvctl_want_help(const struct hvctl_cmd *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_usage(stdout, cmd);
			printf("\n%s.\n", cmd->summary);
			return true;
		}
	}
	return false;
}

static void help(FILE *f)
{
	fprintf(f, "Usage: hvctl [-j|--json] [COMMAND [ARGS]]\n\n"
		   "Controller for the hvtrace KVM exit tracer. Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const char *s = commands[i]->summary, *nl = strchr(s, '\n');

		/* The first line of the summary only. */
		fprintf(f, "  %-14s %.*s\n", commands[i]->name,
			nl ? (int)(nl - s) : (int)strlen(s), s);
	}
	fprintf(f, "  %-14s %s\n", "help", "show this help");
	fprintf(f, "\n'hvctl COMMAND --help' shows a command's arguments.\n");
}

static int run(int argc, char **argv)
{
	const char *name;

	argv++, argc--;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
			hvctl_json = true;
		} else if (!strcmp(argv[0], "-h") ||
			   !strcmp(argv[0], "--help")) {
			help(stdout);
			return 0;
		} else if (!strcmp(argv[0], "-V") ||
			   !strcmp(argv[0], "--version")) {
			printf("hvctl %s\n", HVTRACE_VERSION);
			return 0;
		} else {
			fprintf(stderr, "Error: unknown option '%s'.\n",
				argv[0]);
			help(stderr);
			return 2;
		}
		argv++, argc--;
	}

	name = argc ? argv[0] : "status";
	if (!strcmp(name, "help")) {
		help(stdout);
		return 0;
	}
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (!strcmp(name, commands[i]->name))
			return commands[i]->run(argc ? argc : 1,
						argc ? argv : (char *[]){
							(char *)name, NULL });
	}
	fprintf(stderr, "Error: unknown command '%s'.\n", name);
	help(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	/* A command that wrote less than it said failed (> /dev/full). */
	return ret ? ret : out_check_stdout();
}
