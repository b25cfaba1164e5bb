/* SPDX-License-Identifier: GPL-2.0 */
/* What the hvctl source files share. */
#ifndef HVCTL_H
#define HVCTL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/utsname.h>

#include "opts.h"

struct hvctl_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;	/* arguments after the command name */
	const char *summary;
	const struct hvctl_opt *opts;	/* ends with OPT_END; NULL: none */
	/* What its arguments can be, for completion: words, or "@dir" */
	const char *args;
};

/*
 * Global options (cli.c; opts.c sets them), set once before the command
 * runs, wherever the user typed them. Commands read them to set up their
 * writers.
 */
extern bool hvctl_json;

/*
 * "Error: ...." through the error sink (err.h), and 1: every failing path
 * ends this way.
 */
int hvctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * All written to standard output got out: 0, or 1 with "Error: writing
 * standard output: <reason>." printed. main() asks after every command.
 */
int hvctl_check_stdout(void);
/* The usage line after an error already reported; exit status 2. */
int hvctl_usage(const struct hvctl_cmd *cmd);
/* Bad command line: message plus the command's usage, exit status 2. */
int hvctl_usage_err(const struct hvctl_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * ERR (negative) from a part of a change the user typed (hvc_change_*(),
 * reported): a bad value is a usage error, exit status 2; running out of
 * memory is not, 1.
 */
static inline int hvctl_change_err(const struct hvctl_cmd *cmd, int err)
{
	return err == -ENOMEM ? 1 : hvctl_usage(cmd);
}

/* True when argv asks for --help (before any "--"); prints the help. */
bool hvctl_want_help(const struct hvctl_cmd *cmd, int argc, char **argv);
/* The command's usage line and summary, on standard output. */
void hvctl_cmd_help(const struct hvctl_cmd *cmd);

struct hvc;
/* A command without arguments that is one call: 0, 1 or 2 (usage). */
int hvctl_run_call(const struct hvctl_cmd *cmd, int (*call)(struct hvc *),
		   int argc, char **argv);

/*
 * A watch's settings in words (cmd_watch.c), "stall 20.00ms/50.00ms,
 * history 256, post 10.00ms, ...", and as JSON members.
 */
struct hvc_watch;
struct out;
void hvctl_watch_describe(char *buf, size_t len, const struct hvc_watch *w);
void hvctl_watch_json(struct out *o, const struct hvc_watch *w);

/*
 * What a trace says of this host (host.json, cmd_record.c): ENV's
 * strings kept in H, VERSION the module's; the clock offset taken now.
 */
struct trace_env;
struct hvctl_host {
	struct utsname uts;
	char host[256], vendor[64];
};
void hvctl_host_env(struct hvctl_host *h, struct trace_env *env,
		    const char *version);

/* Snapshots as JSON documents, for traces (cmd_stat.c, cmd_config.c). */
int hvctl_write_stats_json(FILE *f);
int hvctl_write_config_json(FILE *f);

/* The options, in the option table of a command whose TYPE has F. */
#define TRACE_FILTER_OPTS(type, f)				\
	OPT_STR("--since", type, f.since, NULL),		\
	OPT_STR("--until", type, f.until, NULL),		\
	OPT_STR("--vm", type, f.vm, NULL),			\
	OPT_STR("--vcpu", type, f.vcpu, NULL),			\
	OPT_STR("--reason", type, f.reason, "@reason"),	\
	OPT_STR("--cpu", type, f.cpu, NULL)

/* Usage text of the options, for the commands' usage strings. */
#define TRACE_FILTER_USAGE \
	"[--since T] [--until T] [--vm VM] [--vcpu N] [--reason R] [--cpu N]"

/* Subcommands, one file each. */
extern const struct hvctl_cmd hvctl_cmd_status;
extern const struct hvctl_cmd hvctl_cmd_config;
extern const struct hvctl_cmd hvctl_cmd_apply;
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
extern const struct hvctl_cmd hvctl_cmd_watch;
extern const struct hvctl_cmd hvctl_cmd_exporter;

#endif /* HVCTL_H */
