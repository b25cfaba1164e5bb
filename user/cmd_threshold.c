// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl set-threshold: the in-kernel duration thresholds. Exits shorter
 * than their threshold (global, or per exit reason) are aggregated but not
 * recorded. What every exit threshold compares with is one part of the
 * exit's time (--on), a property of the global threshold; per-reason
 * thresholds compare the same part. Preemption records have a threshold
 * of their own.
 */
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "config_req.h"
#include "duration.h"
#include "hvctl.h"
#include "time_parts.h"

/* The module's limit (kmod/genl.c): an hour. */
#define HVCTL_MAX_THRESHOLD_NS (3600ULL * 1000000000ULL)

#define MAX_REFS (EXIT_REASON_MAX_MATCHES * 3)

struct thr_opts {
	const char *dur;	/* DURATION as typed, NULL: none */
	uint64_t ns;
	int on;			/* enum hvtrace_threshold_on, -1: not given */
	int halt;		/* HALT_TRIGGERS 0/1, -1: not given */
	const char *halt_opt;	/* the flag that set it, for messages */
	bool clear;		/* --clear-reasons */
	bool preempt;		/* --preemptions */
	int nrefs;
	struct exit_reason_ref refs[MAX_REFS + EXIT_REASON_MAX_MATCHES];
};

static int set_halt(struct thr_opts *o, const char *opt, int v)
{
	if (o->halt >= 0 && o->halt != v)
		return hvctl_usage_err(&hvctl_cmd_set_threshold,
				       "%s and %s contradict each other",
				       o->halt_opt, opt);
	o->halt = v;
	o->halt_opt = opt;
	return 0;
}

/* Collect argv into O; 0, or the exit status of the error printed. */
static int parse_args(int argc, char **argv, struct thr_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	const char *err;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int n, ret = 0;

		if (!strcmp(a, "--reason")) {
			if (++i == argc)
				return hvctl_usage_err(cmd, "--reason needs a name");
			n = parse_reason_arg(argv[i], o->refs + o->nrefs,
					     EXIT_REASON_MAX_MATCHES);
			if (!n)
				return 1;
			o->nrefs += n;
			if (o->nrefs > MAX_REFS)
				return hvctl_usage_err(cmd, "too many --reason");
		} else if (!strcmp(a, "--on") || !strncmp(a, "--on=", 5)) {
			const char *part = a[4] ? a + 5 : argv[++i];

			if (!part)
				return hvctl_usage_err(cmd, "--on needs a part (%s)",
						       THRESHOLD_ON_NAMES);
			if (o->on >= 0)
				return hvctl_usage_err(cmd, "--on given twice");
			o->on = threshold_on_parse(part);
			if (o->on < 0)
				return hvctl_usage_err(cmd,
						       "unknown part '%s' for --on (%s)",
						       part, THRESHOLD_ON_NAMES);
		} else if (!strcmp(a, "--exclude-halt")) {
			ret = set_halt(o, a, 0);
		} else if (!strcmp(a, "--include-halt")) {
			ret = set_halt(o, a, 1);
		} else if (!strcmp(a, "--clear-reasons")) {
			o->clear = true;
		} else if (!strcmp(a, "--preemptions")) {
			o->preempt = true;
		} else if (!o->dur && a[0] != '-') {
			o->dur = a;
		} else {
			return hvctl_usage_err(cmd, "unexpected argument '%s'", a);
		}
		if (ret)
			return ret;
	}
	if (o->dur && duration_parse(o->dur, &o->ns, &err))
		return hvctl_usage_err(cmd, "%s", err);
	if (o->ns > HVCTL_MAX_THRESHOLD_NS)
		return hvctl_usage_err(cmd,
				       "threshold %s out of range (at most 3600s)",
				       o->dur);
	return 0;
}

/* The combinations that mean something; the message names the rest. */
static int check_args(const struct thr_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	const char *extra = o->on >= 0 ? "--on" : o->halt >= 0 ? o->halt_opt :
			    o->nrefs ? "--reason" :
			    o->clear ? "--clear-reasons" : NULL;

	if (o->preempt && extra)
		return hvctl_usage_err(cmd,
				       "--preemptions takes a DURATION only, not %s",
				       extra);
	if (o->preempt && !o->dur)
		return hvctl_usage_err(cmd, "--preemptions needs a DURATION");
	if (o->on >= 0 && o->nrefs)
		return hvctl_usage_err(cmd,
				       "--on sets the part every threshold compares, with "
				       "the global threshold: not with --reason");
	if (o->on >= 0 && !o->dur)
		return hvctl_usage_err(cmd,
				       "--on needs the global threshold's DURATION");
	if (o->halt >= 0 && o->on > HVTRACE_ON_TOTAL)
		return hvctl_usage_err(cmd,
				       "%s only applies with --on total, not --on %s",
				       o->halt_opt, threshold_on_name(o->on));
	if (o->nrefs && !o->dur)
		return hvctl_usage_err(cmd, "--reason needs a DURATION");
	if (!o->dur && !extra)
		return hvctl_usage_err(cmd, "missing DURATION");
	return 0;
}

static void put_settings(struct nlmsghdr *nlh, const struct thr_opts *o)
{
	if (o->preempt) {
		mnl_attr_put_u64(nlh, HVTRACE_CFG_PREEMPT_THRESHOLD_NS, o->ns);
		return;
	}
	if (o->clear)
		mnl_attr_put(nlh, HVTRACE_CFG_REASON_THRESHOLDS_CLEAR, 0, NULL);
	if (o->dur && !o->nrefs) {
		mnl_attr_put_u64(nlh, HVTRACE_CFG_THRESHOLD_NS, o->ns);
		/* Without --on: total, so the command says it all. */
		mnl_attr_put_u8(nlh, HVTRACE_CFG_THRESHOLD_ON,
				o->on >= 0 ? o->on : HVTRACE_ON_TOTAL);
	}
	for (int i = 0; o->dur && i < o->nrefs; i++)
		cfg_put_reason(nlh, HVTRACE_CFG_REASON_THRESHOLD, &o->refs[i],
			       true, o->ns);
	if (o->halt >= 0)
		mnl_attr_put_u8(nlh, HVTRACE_CFG_HALT_TRIGGERS, o->halt);
}

static int threshold_run(int argc, char **argv)
{
	struct thr_opts o = { .on = -1, .halt = -1 };
	struct cfg_req r;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_set_threshold, argc, argv))
		return 0;
	ret = parse_args(argc, argv, &o);
	if (!ret)
		ret = check_args(&o);
	if (ret)
		return ret;
	if (!cfg_begin(&r))
		return 1;
	put_settings(r.nlh, &o);
	return cfg_commit(&r);
}

const struct hvctl_cmd hvctl_cmd_set_threshold = {
	.name = "set-threshold",
	.run = threshold_run,
	.usage = "[DURATION [--on PART] [--reason NAME]...] [--clear-reasons] "
		 "[--exclude-halt|--include-halt] | DURATION --preemptions",
	.summary = "record only exits lasting DURATION or more (ns, us, ms, s);\n"
		   "--on: in PART of their time, total (less halt unless\n"
		   "--include-halt), handling, vmm, halt, preempted or other;\n"
		   "--reason: for those exit reasons only; --preemptions: the\n"
		   "threshold of preemption records",
};
