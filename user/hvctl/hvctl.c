// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl: controller for the hvtrace kernel module. A dispatcher over a
 * table of subcommands, each in its own file.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "output.h"
#include "util.h"

static const struct hvctl_cmd *const commands[] = {
	&hvctl_cmd_status,
	&hvctl_cmd_config,
	&hvctl_cmd_apply,
	&hvctl_cmd_set_threshold,
	&hvctl_cmd_filter,
	&hvctl_cmd_buffer,
	&hvctl_cmd_start,
	&hvctl_cmd_stop,
	&hvctl_cmd_clear,
	&hvctl_cmd_stat,
	&hvctl_cmd_drain,
	&hvctl_cmd_record,
	&hvctl_cmd_watch,
	&hvctl_cmd_exporter,
	&hvctl_cmd_report,
	&hvctl_cmd_dump,
	&hvctl_cmd_export,
	&hvctl_cmd_reasons,
};

#define N_COMMANDS ARRAY_SIZE(commands)

/* The error sink: every message, the CLI's and the library's. */
static void print_err(const char *msg, void *data)
{
	(void)data;
	fflush(stdout);
	fprintf(stderr, "Error: %s.\n", msg);
}

static const struct hvctl_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

/* Values of the completion hint VALUES: words one a line, or the exit reasons. */
static void complete_values(const char *values)
{
	if (!values)
		return;
	if (strcmp(values, "@reason")) {
		for (const char *s = values; *s; s++)
			putchar(*s == ' ' ? '\n' : *s);
		putchar('\n');
		return;
	}
	/* A comma-separated list: complete its last name. In lower case,
	 * as people type them ("npf"); either is taken.
	 */
	printf("@list\n");
	for (unsigned int isa = HV_ISA_VMX; isa <= HV_ISA_SVM; isa++) {
		for (int i = 0; i < exit_reason_count(isa); i++) {
			for (const char *c = exit_reason_at(isa, i)->name; *c; c++)
				putchar(tolower((unsigned char)*c));
			putchar('\n');
		}
	}
}

/* NAME, with "=" when it is long and takes a value: "-o" never has one. */
static void complete_name(const struct hvctl_opt *o, const char *name)
{
	bool eq = hvctl_opt_has_value(o) && name[1] == '-';

	printf("%s%s\n", name, eq ? "=" : "");
}

static void complete_opts(const struct hvctl_opt *t)
{
	for (const struct hvctl_opt *o = t; o && o->name; o++) {
		complete_name(o, o->name);
		if (o->alias)
			complete_name(o, o->alias);
	}
}

/*
 * What the bash completion (scripts/hvctl.bash-completion) offers, from
 * the command table itself so the two cannot drift. Not in the help:
 *   hvctl __complete           the commands
 *   hvctl __complete CMD       its options, "--opt=" when long and with a value
 *   hvctl __complete CMD OPT   OPT's values (words, or @file / @dir; "@list"
 *                              first: a comma-separated list of them);
 *                              exit status 1: OPT takes no value
 *   hvctl __complete CMD ''    what CMD's arguments can be
 */
static int complete(int argc, char **argv)
{
	const struct hvctl_cmd *cmd;
	const struct hvctl_opt *o;

	if (argc < 2) {
		for (size_t i = 0; i < N_COMMANDS; i++)
			printf("%s\n", commands[i]->name);
		printf("help\n");
		return 0;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd)
		return strcmp(argv[1], "help") ? 1 : complete(1, argv);
	if (argc < 3) {
		complete_opts(cmd->opts);
		complete_opts(hvctl_global_opts);
		printf("--help\n");
		return 0;
	}
	if (!*argv[2]) {
		complete_values(cmd->args);
		return 0;
	}
	o = hvctl_find_opt(cmd, argv[2]);
	if (!o || !hvctl_opt_has_value(o))
		return 1;
	complete_values(o->values);
	return 0;
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
	fprintf(f, "\n'hvctl help COMMAND' or 'hvctl COMMAND --help' shows a command's\n"
		   "arguments.\n");
}

static int run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd;
	const char *name;

	argv++, argc--;
	while (argc && argv[0][0] == '-') {
		const struct hvctl_opt *o = hvctl_global_opt(argv[0]);

		if (!strcmp(argv[0], "--")) {
			argv++, argc--;
			break;
		}
		if (o) {
			o->call(NULL, o->name, NULL);
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
	if (!strcmp(name, "__complete"))
		return complete(argc, argv);
	if (!strcmp(name, "help") && argc > 2) {
		fprintf(stderr, "Error: unexpected argument '%s'.\n", argv[2]);
		fprintf(stderr, "Usage: hvctl help [COMMAND]\n");
		return 2;
	}
	/* "hvctl help CMD" is "hvctl CMD --help". */
	if (!strcmp(name, "help") && argc == 2) {
		cmd = find_cmd(argv[1]);
		if (cmd) {
			hvctl_cmd_help(cmd);
			return 0;
		}
		name = argv[1];	/* "help help" is help; the rest unknown */
	}
	if (!strcmp(name, "help")) {
		help(stdout);
		return 0;
	}
	cmd = argc == 2 && !strcmp(argv[0], "help") ? NULL : find_cmd(name);
	if (cmd)
		return cmd->run(argc ? argc : 1,
				argc ? argv : (char *[]){ (char *)name, NULL });
	fprintf(stderr, "Error: unknown command '%s'.\n", name);
	help(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int ret;

	hvc_set_err_sink(print_err, NULL);
	ret = run(argc, argv);

	/* A command that wrote less than it said failed (> /dev/full). */
	return ret ? ret : hvctl_check_stdout();
}
