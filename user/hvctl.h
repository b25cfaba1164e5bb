/* SPDX-License-Identifier: GPL-2.0 */
/* What the hvctl source files share. */
#ifndef HVCTL_H
#define HVCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct hvctl_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;	/* arguments after the command name */
	const char *summary;
};

/* Global options (hvctl.c). */
extern bool hvctl_json;

/* Print "Error: ...". and return 1: every failing path ends this way. */
int hvctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Bad command line: message plus the command's usage, exit status 2. */
int hvctl_usage_err(const struct hvctl_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* An option of a command on a trace: a flag, or one with a value. */
struct hvctl_opt {
	const char *name;	/* "--format" */
	const char **value;	/* "--format V", "--format=V" set *value */
	bool *flag;		/* or: "--strict" sets *flag */
};

/*
 * Arguments "DIR [OPTION...]" in any order, OPTS ending with a NULL name:
 * sets *DIR and what the options given point at. 0, or the usage error's
 * exit status.
 */
int hvctl_dir_and_options(const struct hvctl_cmd *cmd, int argc, char **argv,
			  const struct hvctl_opt *opts, const char **dir);
/* True when argv asks for --help; prints the usage. */
bool hvctl_want_help(const struct hvctl_cmd *cmd, int argc, char **argv);

/* Snapshots as JSON documents, for traces (cmd_stat.c, cmd_config.c). */
int hvctl_write_stats_json(FILE *f);
int hvctl_write_config_json(FILE *f);

/* Subcommands, one file each. */
extern const struct hvctl_cmd hvctl_cmd_status;
extern const struct hvctl_cmd hvctl_cmd_config;
extern const struct hvctl_cmd hvctl_cmd_set_threshold;
extern const struct hvctl_cmd hvctl_cmd_filter;
extern const struct hvctl_cmd hvctl_cmd_buffer;
extern const struct hvctl_cmd hvctl_cmd_start;
extern const struct hvctl_cmd hvctl_cmd_stop;
extern const struct hvctl_cmd hvctl_cmd_clear;
extern const struct hvctl_cmd hvctl_cmd_stat;
extern const struct hvctl_cmd hvctl_cmd_reasons;
extern const struct hvctl_cmd hvctl_cmd_drain;
extern const struct hvctl_cmd hvctl_cmd_dump;
extern const struct hvctl_cmd hvctl_cmd_export;
extern const struct hvctl_cmd hvctl_cmd_record;
extern const struct hvctl_cmd hvctl_cmd_report;

#endif /* HVCTL_H */
