// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl set-threshold: the in-kernel duration thresholds. Exits shorter
 * than their threshold (global, or per exit reason) are aggregated but not
 * recorded. What every exit threshold compares with is one part of the
 * exit's time (--on), a property of the global threshold; per-reason
 * thresholds compare the same part. Preemption records have a threshold
 * of their own, and late interrupt records too, which is off by default.
 */
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "hvctl.h"
#include "time_parts.h"

#define MAX_REFS (EXIT_REASON_MAX_MATCHES * 3)

struct thr_opts {
	const char *dur;	/* DURATION as typed, NULL: none */
	uint64_t ns;
	int on;			/* enum hvtrace_threshold_on, -1: not given */
	int halt;		/* HALT_TRIGGERS 0/1, -1: not given */
	const char *halt_opt;	/* the flag that set it, for messages */
	bool clear;		/* --clear-reasons */
	bool preempt;		/* --preemptions */
	bool irq;		/* --interrupts */
	int nrefs;
	/* Per-reason thresholds go in as --reason comes, at 0 until DURATION */
	struct hvc_change ch;
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

static int reason_opt(void *p, const char *opt, const char *v)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	struct thr_opts *o = p;
	int ret = hvc_change_reason_threshold(&o->ch, opt, v, 0);

	if (ret)
		return hvctl_change_err(cmd, ret);
	o->nrefs = o->ch.nr_thresholds;
	if (o->nrefs > MAX_REFS)
		return hvctl_usage_err(cmd, "too many --reason");
	return 0;
}

static int on_opt(void *p, const char *opt, const char *v)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	struct thr_opts *o = p;

	o->on = threshold_on_parse(v);
	if (o->on < 0)
		return hvctl_usage_err(cmd, "unknown part '%s' for %s (%s)", v,
				       opt, THRESHOLD_ON_NAMES);
	return 0;
}

static int exclude_halt_opt(void *o, const char *opt, const char *v)
{
	(void)v;
	return set_halt(o, opt, 0);
}

static int include_halt_opt(void *o, const char *opt, const char *v)
{
	(void)v;
	return set_halt(o, opt, 1);
}

static const struct hvctl_opt thr_opts[] = {
	OPT_CALL("--on", on_opt, "total handling vmm halt runnable other"),
	{ .name = "--reason", .kind = HVCTL_OPT_CALL, .call = reason_opt,
	  .values = "@reason", .repeat = true },
	OPT_FLAG("--clear-reasons", struct thr_opts, clear),
	OPT_FLAG_CALL("--exclude-halt", exclude_halt_opt),
	OPT_FLAG_CALL("--include-halt", include_halt_opt),
	OPT_FLAG("--preemptions", struct thr_opts, preempt),
	OPT_FLAG("--interrupts", struct thr_opts, irq),
	OPT_END,
};

/* Collect argv into O; 0, or the exit status of the error printed. */
static int parse_args(int argc, char **argv, struct thr_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	int n, ret = hvctl_parse_opts(cmd, argc, argv, o, &n);

	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 1);
	if (ret)
		return ret;
	o->dur = n ? argv[1] : NULL;
	if (!o->dur)
		return 0;
	/* Exits and preemptions are always recorded from some duration. */
	if (!o->irq && !strcmp(o->dur, "off"))
		return hvctl_usage_err(cmd, "off goes with --interrupts only: "
				       "other thresholds take a DURATION");
	if (o->irq ? hvc_parse_irq_threshold(o->dur, &o->ns) :
	    hvc_parse_threshold(o->dur, &o->ns))
		return hvctl_usage(cmd);
	return 0;
}

/* The combinations that mean something; the message names the rest. */
static int check_args(const struct thr_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	const char *extra = o->on >= 0 ? "--on" : o->halt >= 0 ? o->halt_opt :
			    o->nrefs ? "--reason" :
			    o->clear ? "--clear-reasons" : NULL;
	/* A threshold of other records than exits: alone. */
	const char *other = o->preempt ? "--preemptions" :
			    o->irq ? "--interrupts" : NULL;

	if (o->preempt && o->irq)
		return hvctl_usage_err(cmd,
				       "--preemptions and --interrupts set two "
				       "thresholds: one at a time");
	if (other && extra)
		return hvctl_usage_err(cmd, "%s takes a DURATION only, not %s",
				       other, extra);
	if (o->preempt && !o->dur)
		return hvctl_usage_err(cmd, "--preemptions needs a DURATION");
	if (o->irq && !o->dur)
		return hvctl_usage_err(cmd,
				       "--interrupts needs a DURATION or off");
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

/* What the command line changes, now that all of it is known good. */
static void make_change(struct thr_opts *o)
{
	struct hvc_change *ch = &o->ch;

	if (o->preempt) {
		ch->set |= HVC_CH_PREEMPT;
		ch->preempt_threshold_ns = o->ns;
		hvc_change_typed(ch, HVTRACE_CFG_PREEMPT_THRESHOLD_NS,
				 "--preemptions", o->dur);
		return;
	}
	if (o->irq) {
		ch->set |= HVC_CH_IRQ;
		ch->irq_threshold_ns = o->ns;
		hvc_change_typed(ch, HVTRACE_CFG_IRQ_THRESHOLD_NS,
				 "--interrupts", o->dur);
		return;
	}
	if (o->clear)
		ch->set |= HVC_CH_CLEAR_THRESHOLDS;
	if (o->dur && !o->nrefs) {
		ch->set |= HVC_CH_THRESHOLD;
		ch->threshold_ns = o->ns;
		/* Without --on: total, so the command says it all. */
		ch->threshold_on = o->on >= 0 ? o->on : HVTRACE_ON_TOTAL;
		hvc_change_typed(ch, HVTRACE_CFG_THRESHOLD_NS, NULL, o->dur);
		hvc_change_typed(ch, HVTRACE_CFG_THRESHOLD_ON, o->on >= 0 ?
				 "--on" : NULL, threshold_on_name(ch->threshold_on));
	}
	for (int i = 0; i < o->nrefs; i++)
		ch->thresholds[i].threshold_ns = o->ns;
	if (o->halt >= 0) {
		ch->set |= HVC_CH_HALT;
		ch->halt_triggers = o->halt;
		hvc_change_typed(ch, HVTRACE_CFG_HALT_TRIGGERS, NULL,
				 o->halt_opt);
	}
}

static int threshold_run(int argc, char **argv)
{
	struct thr_opts o = { .on = -1, .halt = -1 };
	int ret;

	if (hvctl_want_help(&hvctl_cmd_set_threshold, argc, argv))
		return 0;
	ret = parse_args(argc, argv, &o);
	if (!ret)
		ret = check_args(&o);
	if (ret)
		return ret;
	make_change(&o);
	return hvc_apply(&o.ch) ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_set_threshold = {
	.name = "set-threshold",
	.run = threshold_run,
	.usage = "[DURATION [--on PART] [--reason NAME]...] [--clear-reasons] "
		 "[--exclude-halt|--include-halt] | DURATION --preemptions | "
		 "DURATION|off --interrupts",
	.opts = thr_opts,
	.summary = "record only exits lasting DURATION or more (ns, us, ms, s);\n"
		   "--on: in PART of their time, total (less halt unless\n"
		   "--include-halt), handling, vmm, halt, runnable (also\n"
		   "\"preempted\") or other;\n"
		   "--reason: for those exit reasons only; --preemptions: the\n"
		   "threshold of preemption records; --interrupts: of late\n"
		   "interrupt records, raise to injection (off, the default:\n"
		   "none)",
};
