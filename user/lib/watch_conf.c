// SPDX-License-Identifier: GPL-2.0
/*
 * The watch's settings from what was typed, the command line's or the
 * file's (watch_conf.h). Each message names the setting as it was typed,
 * "--stall" or "watch.stall".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "duration.h"
#include "number.h"
#include "time_parts.h"
#include "util.h"
#include "vm_ident.h"
#include "watch_conf.h"

const char *const hvc_watch_key_names[HVC_WK_NR] = {
	[HVC_WK_EXIT] = "exit",
	[HVC_WK_ON] = "on",
	[HVC_WK_HALT] = "halt",
	[HVC_WK_STALL] = "stall",
	[HVC_WK_PREEMPTED] = "preempted",
	[HVC_WK_IRQ_LATENCY] = "irq-latency",
	[HVC_WK_GUEST_MARK] = "guest-mark",
	[HVC_WK_HISTORY] = "history",
	[HVC_WK_POST] = "post",
	[HVC_WK_RATE] = "rate",
	[HVC_WK_RATE_TOTAL] = "rate-total",
	[HVC_WK_VM] = "vm",
	[HVC_WK_VCPU] = "vcpu",
	[HVC_WK_DIR] = "dir",
	[HVC_WK_KEEP] = "keep",
	[HVC_WK_MAX_SIZE] = "max-size",
};

int hvc_watch_key(const char *name)
{
	for (int i = 0; i < HVC_WK_NR; i++)
		if (!strcmp(name, hvc_watch_key_names[i]))
			return i;
	return -1;
}

/* NAME V typed for ATTR, for the module's refusals; SEP between them. */
static void typed(struct hvc_watch_conf *c, unsigned int attr,
		  const char *name, const char *sep, const char *v)
{
	snprintf(c->typed[attr], sizeof(c->typed[attr]), "%s%s%s", name,
		 v ? sep : "", v ? v : "");
}

/* A duration of at most MAX, what is wrong with it said of NAME. */
static int duration_upto(const char *name, const char *v, uint64_t max,
			 uint64_t *ns)
{
	char s[DURATION_LEN];
	const char *err;

	if (duration_parse(v, ns, &err))
		return hvc_err(EINVAL, "%s: %s", name, err);
	if (*ns > max)
		return hvc_err(EINVAL, "%s is at most %s, not '%s'", name,
			       duration_exact_str(s, max), v);
	return 0;
}

/* A trigger's duration: a threshold, more than 0. */
static int trigger_ns(const char *name, const char *v, uint64_t *ns)
{
	int ret = duration_upto(name, v, HVTRACE_THRESHOLD_NS_MAX, ns);

	if (!ret && !*ns)
		ret = hvc_err(EINVAL, "%s must be more than 0", name);
	return ret;
}

/* "20ms/50ms": X out of the guest within the last Y. */
static int set_stall(struct hvc_watch *w, const char *name, const char *v)
{
	const char *slash = strchr(v, '/');
	char x[64], xs[DURATION_LEN], ys[DURATION_LEN];
	uint64_t x_ns, y_ns;
	int ret;

	if (!slash || (size_t)(slash - v) >= sizeof(x))
		return hvc_err(EINVAL, "%s takes X/Y, at least X out of the "
			       "guest within the last Y (e.g. 20ms/50ms), not "
			       "'%s'", name, v);
	snprintf(x, sizeof(x), "%.*s", (int)(slash - v), v);
	ret = hvc_parse_threshold(x, &x_ns);
	if (!ret)
		ret = hvc_parse_threshold(slash + 1, &y_ns);
	if (ret)
		return ret;
	if (!x_ns || !y_ns)
		return hvc_err(EINVAL, "%s %s: both times must be more than 0",
			       name, v);
	if (x_ns > y_ns)
		return hvc_err(EINVAL, "%s %s: %s out of the guest cannot fit "
			       "in a window of %s (X must be at most Y)", name,
			       v, duration_str(xs, x_ns),
			       duration_str(ys, y_ns));
	w->stall_ns = x_ns;
	w->stall_window_ns = y_ns;
	return 0;
}

static int set_post(struct hvc_watch *w, const char *name, const char *v)
{
	uint64_t ns;

	if (duration_upto(name, v, HVTRACE_WATCH_POST_NS_MAX, &ns))
		return -EINVAL;
	w->post_ns = ns;
	w->has_post = true;
	return 0;
}

/* A VMM's pid, as the VM and guest-mark settings take it. */
static int vmm_pid(const struct hvc_watch_conf *c, const char *name,
		   const char *v, uint32_t *pid)
{
	pid_t vmm;
	/* A pid, or a running VM's name or UUID (vm_ident.h). */
	int ret = c->names_unresolved ? vm_ident_check(name, v, &vmm) :
					vm_ident_find(name, v, &vmm);

	if (!ret)
		*pid = vmm;
	return ret;
}

/*
 * A guest's mark triggers: any VMM's (V NULL or "any"), or only the
 * marks of VMM V's VMs (a guest triggers only where it is trusted to).
 */
static int set_guest_mark(struct hvc_watch_conf *c, const char *name,
			  const char *v)
{
	/* As typed: "--guest-mark=PID" on the command line. */
	const char *sep = name[0] == '-' ? "=" : " ";
	uint32_t pid = 0;
	int ret;

	if (v && strcmp(v, "any")) {
		ret = vmm_pid(c, name, v, &pid);
		if (ret)
			return ret;
	}
	c->w.mark_triggers = 1;
	c->w.mark_pid = pid;
	typed(c, HVTRACE_WATCH_MARK_TRIGGERS, name, sep, v);
	c->typed[HVTRACE_WATCH_MARK_PID][0] = '\0';
	if (pid)
		typed(c, HVTRACE_WATCH_MARK_PID, name, sep, v);
	return 0;
}

static int set_halt(struct hvc_watch_conf *c, const char *name, const char *v)
{
	if (v && strcmp(v, "include") && strcmp(v, "exclude"))
		return hvc_err(EINVAL, "%s is include or exclude, not '%s'",
			       name, v);
	c->halt = !v || !strcmp(v, "include");
	typed(c, HVTRACE_WATCH_HALT_TRIGGERS, name, " ", v);
	return 0;
}

/* A count from 1 to MAX into a u32 setting *TO. */
static int set_count(const char *name, const char *v, uint64_t max,
		     uint32_t *to)
{
	uint64_t n;

	if (hvc_parse_count(name, v, 1, max, &n))
		return -EINVAL;
	*to = n;
	return 0;
}

static int set_on(struct hvc_watch *w, const char *name, const char *v)
{
	int on = threshold_on_parse(v);

	if (on < 0)
		return hvc_err(EINVAL, "unknown part '%s' for %s (%s)", v, name,
			       THRESHOLD_ON_NAMES);
	w->exit_on = on;
	return 0;
}

static int set_vm(struct hvc_watch_conf *c, const char *name, const char *v)
{
	c->w.pid = 0;
	return strcmp(v, "any") ? vmm_pid(c, name, v, &c->w.pid) : 0;
}

/*
 * The settings that are a value of the module's watch, one attribute
 * each (the stall two), typed for it.
 */
static int set_watch(struct hvc_watch_conf *c, enum hvc_watch_key key,
		     const char *name, const char *v)
{
	struct hvc_watch *w = &c->w;
	unsigned int attr;
	int ret;

	switch (key) {
	case HVC_WK_EXIT:
		ret = trigger_ns(name, v, &w->exit_ns);
		attr = HVTRACE_WATCH_EXIT_NS;
		break;
	case HVC_WK_ON:
		ret = set_on(w, name, v);
		attr = HVTRACE_WATCH_EXIT_ON;
		break;
	case HVC_WK_STALL:
		ret = set_stall(w, name, v);
		attr = HVTRACE_WATCH_STALL_NS;
		break;
	case HVC_WK_PREEMPTED:
		ret = trigger_ns(name, v, &w->preempt_ns);
		attr = HVTRACE_WATCH_PREEMPT_NS;
		break;
	case HVC_WK_IRQ_LATENCY:
		ret = trigger_ns(name, v, &w->irq_ns);
		attr = HVTRACE_WATCH_IRQ_NS;
		break;
	case HVC_WK_HISTORY:
		ret = set_count(name, v, HVTRACE_WATCH_HISTORY_MAX,
				&w->history);
		attr = HVTRACE_WATCH_HISTORY;
		break;
	case HVC_WK_POST:
		ret = set_post(w, name, v);
		attr = HVTRACE_WATCH_POST_NS;
		break;
	case HVC_WK_RATE:
		ret = set_count(name, v, HVTRACE_WATCH_RATE_MAX, &w->rate);
		attr = HVTRACE_WATCH_RATE;
		break;
	case HVC_WK_RATE_TOTAL:
		ret = set_count(name, v, HVTRACE_WATCH_RATE_MAX,
				&w->rate_total);
		attr = HVTRACE_WATCH_RATE_TOTAL;
		break;
	case HVC_WK_VM:
		ret = set_vm(c, name, v);
		attr = HVTRACE_WATCH_FILTER_PID;
		break;
	case HVC_WK_VCPU:
		ret = hvc_watch_vcpus(w, v);
		attr = HVTRACE_WATCH_FILTER_VCPUS;
		break;
	default:
		return -ENOENT;
	}
	if (ret)
		return -EINVAL;
	typed(c, attr, name, " ", v);
	if (key == HVC_WK_STALL)
		typed(c, HVTRACE_WATCH_STALL_WINDOW_NS, name, " ", v);
	return 0;
}

/* The settings of the directory of captures, hvctl's own. */
static int set_dir(struct hvc_watch_conf *c, enum hvc_watch_key key,
		   const char *name, const char *v)
{
	switch (key) {
	case HVC_WK_DIR:
		if (strlen(v) >= sizeof(c->dir))
			return hvc_err(ENAMETOOLONG, "%s: the path is longer "
				       "than %zu bytes", name,
				       sizeof(c->dir) - 1);
		snprintf(c->dir, sizeof(c->dir), "%s", v);
		return 0;
	case HVC_WK_KEEP:
		if (!strcmp(v, "none")) {
			c->keep = 0;
			return 0;
		}
		if (!strcmp(v, "0"))
			return hvc_err(EINVAL, "%s must be more than 0 (none: "
				       "no limit)", name);
		return hvc_parse_count(name, v, 1, UINT64_MAX, &c->keep);
	case HVC_WK_MAX_SIZE:
		if (!strcmp(v, "none")) {
			c->max_kib = 0;
			return 0;
		}
		if (hvc_parse_size(v, &c->max_kib))
			return -EINVAL;
		if (!c->max_kib)
			return hvc_err(EINVAL, "%s must be more than 0 (none: "
				       "no limit)", name);
		return 0;
	default:
		return -ENOENT;
	}
}

int hvc_watch_conf_set(struct hvc_watch_conf *c, enum hvc_watch_key key,
		       const char *name, const char *v)
{
	int ret;

	if (key == HVC_WK_HALT)
		ret = set_halt(c, name, v);
	else if (key == HVC_WK_GUEST_MARK)
		ret = set_guest_mark(c, name, v);
	else
		ret = set_watch(c, key, name, v);
	if (ret == -ENOENT)
		ret = set_dir(c, key, name, v);
	if (ret)
		return ret;
	c->given |= 1U << key;
	snprintf(c->from[key], sizeof(c->from[key]), "%s", name);
	return 0;
}

/* KEY as given, or if not, named in the style LIKE was given in. */
static const char *key_name(const struct hvc_watch_conf *c,
			    enum hvc_watch_key key, enum hvc_watch_key like,
			    char *buf, size_t len)
{
	if (c->given & 1U << key)
		return c->from[key];
	snprintf(buf, len, "%s%s", c->from[like][0] == '-' ? "--" : "watch.",
		 hvc_watch_key_names[key]);
	return buf;
}

/* The first combination that means nothing: its message, *BAD its key. */
static int check_parts(const struct hvc_watch_conf *c, enum hvc_watch_key *bad)
{
	const struct hvc_watch *w = &c->w;
	char a[32], b[32], d[32];

	if ((c->given & 1U << HVC_WK_ON) && !w->exit_ns) {
		*bad = HVC_WK_ON;
		return hvc_err(EINVAL, "%s goes with %s", c->from[HVC_WK_ON],
			       key_name(c, HVC_WK_EXIT, HVC_WK_ON, a,
					sizeof(a)));
	}
	*bad = HVC_WK_HALT;
	if (c->halt && !w->exit_ns && !w->stall_ns)
		return hvc_err(EINVAL, "%s goes with %s or %s",
			       c->from[HVC_WK_HALT],
			       key_name(c, HVC_WK_EXIT, HVC_WK_HALT, a,
					sizeof(a)),
			       key_name(c, HVC_WK_STALL, HVC_WK_HALT, b,
					sizeof(b)));
	if (c->halt && !w->stall_ns && w->exit_on != HVTRACE_ON_TOTAL)
		return hvc_err(EINVAL, "%s counts halt time toward %s on the "
			       "total only, not %s %s", c->from[HVC_WK_HALT],
			       key_name(c, HVC_WK_EXIT, HVC_WK_HALT, a,
					sizeof(a)),
			       key_name(c, HVC_WK_ON, HVC_WK_HALT, d,
					sizeof(d)),
			       threshold_on_name(w->exit_on));
	return 0;
}

int hvc_watch_conf_check(struct hvc_watch_conf *c, bool whole,
			 enum hvc_watch_key *bad)
{
	struct hvc_watch *w = &c->w;
	int ret;

	*bad = HVC_WK_EXIT;
	if (whole && !w->exit_ns && !w->stall_ns && !w->preempt_ns &&
	    !w->irq_ns && !w->mark_triggers)
		return hvc_err(EINVAL, "no trigger: give --exit DUR, --stall "
			       "X/Y, --preempted DUR, --irq-latency DUR or "
			       "--guest-mark");
	ret = check_parts(c, bad);
	if (ret)
		return ret;
	*bad = HVC_WK_DIR;
	if (whole && !c->dir[0])
		return hvc_err(EINVAL, "missing -o DIR");
	w->halt_triggers = c->halt;
	/* Only what counts is named: an "exclude" sends nothing. */
	if (!c->halt)
		c->typed[HVTRACE_WATCH_HALT_TRIGGERS][0] = '\0';
	for (unsigned int i = 0; i < ARRAY_SIZE(c->typed); i++)
		w->typed[i] = c->typed[i][0] ? c->typed[i] : NULL;
	return 0;
}

void hvc_watch_conf_defaults(struct hvc_watch_conf *c)
{
	if (!(c->given & 1U << HVC_WK_KEEP))
		c->keep = HVC_WATCH_KEEP_DEFAULT;
	if (!(c->given & 1U << HVC_WK_MAX_SIZE))
		c->max_kib = HVC_WATCH_MAX_KIB_DEFAULT;
}
