// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl watch: arm the module's watch and write every capture it makes
 * into a directory, unattended, until SIGINT/SIGTERM. The module keeps
 * the last exits and preemptions of each vCPU; when a trigger fires
 * (an exit's part, a stall window, a preemption, a late interrupt, a
 * guest's mark) it freezes that history, records on for the
 * post-trigger window and notifies the "events" group. Then:
 *
 *   CAPTURE notification (or a 1 s timeout, should one be missed)
 *     -> READ_CAPTURES: each capture whole (hvc_captures_read())
 *     -> its story from its records (capture_story.c)
 *     -> DIR/<UTC time>-vm<id>-vcpu<n>/ written whole (watch_dir.c)
 *     -> one line that tells the story; the oldest pruned
 *
 * The watch belongs to this process's session: if hvctl dies, the module
 * disarms it. A full disk drops the capture (counted), never a written
 * one, and the next capture tries again.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/hvtrace.h>

#include "capture_story.h"
#include "client.h"
#include "config_file.h"
#include "duration.h"
#include "hvctl.h"
#include "output.h"
#include "time_parts.h"
#include "vm_ident.h"
#include "watch.h"
#include "watch_conf.h"

#define POLL_MS		1000	/* read captures at least this often */

struct watch_opts {
	const char *config;	/* --config FILE: its watch.* keys first */
	struct hvc_watch_conf c;	/* the settings (watch_conf.c) */
};

/* What has been said about the counters, to say only what changes. */
struct watch_state {
	struct watch_dir wd;
	struct trace_env *env;	/* wd's, its clock offset set per capture */
	unsigned int captures;
	uint64_t disk_dropped;	/* captures the disk had no room for */
	uint64_t said_dropped, said_disk;
	uint64_t said_busy, said_rate, said_total, said_no_history;
	bool failed;		/* an error that is not the disk's */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Every option of the watch's settings, parsed by watch_conf.c. */
static int setting_opt(void *p, const char *opt, const char *v)
{
	struct watch_opts *o = p;
	int key = strcmp(opt, "-o") ? hvc_watch_key(opt + 2) : HVC_WK_DIR;

	if (hvc_watch_conf_set(&o->c, key, opt, v))
		return hvctl_usage(&hvctl_cmd_watch);
	return 0;
}

static const struct hvctl_opt watch_opts[] = {
	OPT_CALL("-o", setting_opt, "@dir"),
	OPT_CALL("--exit", setting_opt, NULL),
	OPT_CALL("--on", setting_opt, "total handling vmm halt runnable other"),
	OPT_FLAG_CALL("--halt", setting_opt),
	OPT_CALL("--stall", setting_opt, NULL),
	OPT_CALL("--preempted", setting_opt, NULL),
	OPT_CALL("--irq-latency", setting_opt, NULL),
	OPT_FLAG_VALUE("--guest-mark", setting_opt),
	OPT_CALL("--history", setting_opt, NULL),
	OPT_CALL("--post", setting_opt, NULL),
	OPT_CALL("--rate", setting_opt, NULL),
	OPT_CALL("--rate-total", setting_opt, NULL),
	OPT_CALL("--vm", setting_opt, NULL),
	OPT_CALL("--vcpu", setting_opt, NULL),
	OPT_CALL("--keep", setting_opt, NULL),
	OPT_CALL("--max-size", setting_opt, NULL),
	OPT_STR("--config", struct watch_opts, config, "@file"),
	OPT_END,
};

/*
 * With --config, the file's watch.* keys, then the command line again
 * over them: what is typed wins. The whole file is checked (one bad line
 * and nothing starts), its module keys left to hvctl apply.
 */
static int read_config(int argc, char **argv, struct watch_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_watch;
	struct hvc_conf *conf = calloc(1, sizeof(*conf));
	int n, ret = 1;

	if (!conf)
		return hvctl_err("out of memory");
	if (!hvc_conf_read(o->config, HVC_CONF_WATCH, conf)) {
		o->c = conf->watch;
		/* No argument was moved: watch takes none (parse_opts). */
		ret = hvctl_parse_opts(cmd, argc, argv, o, &n);
	}
	free(conf);
	return ret;
}

static int parse_opts(int argc, char **argv, struct watch_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_watch;
	int n, ret = hvctl_parse_opts(cmd, argc, argv, o, &n);
	enum hvc_watch_key bad;

	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 0);
	if (!ret && o->config)
		ret = read_config(argc, argv, o);
	if (ret)
		return ret;
	if (hvc_watch_conf_check(&o->c, true, &bad))
		return hvctl_usage(cmd);
	hvc_watch_conf_defaults(&o->c);
	return 0;
}

/* KIB as --max-size takes it: "1G", "4M", "2048K". */
static void size_str(char *buf, size_t len, uint64_t kib)
{
	static const char unit[] = "KMGT";
	unsigned int u = 0;

	while (u < 3 && kib && !(kib & 1023)) {
		kib >>= 10;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", kib, unit[u]);
}

/* "at most 1000 captures and 1G", or what of it there is. */
static void limits(char *buf, size_t len, const struct hvc_watch_conf *c)
{
	char size[24];

	size_str(size, sizeof(size), c->max_kib);
	if (c->keep && c->max_kib)
		snprintf(buf, len, "at most %" PRIu64 " capture%s and %s",
			 c->keep, c->keep == 1 ? "" : "s", size);
	else if (c->keep)
		snprintf(buf, len, "at most %" PRIu64 " capture%s", c->keep,
			 c->keep == 1 ? "" : "s");
	else if (c->max_kib)
		snprintf(buf, len, "at most %s", size);
	else
		snprintf(buf, len, "no limit");
}

/* The vCPU bitmap as a list, "0,2-5" ("any" when empty). */
static void vcpu_list(char *buf, size_t len, const struct hvc_watch *w)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "?");
		return;
	}
	hvc_id_list_put(f, w->vcpus, w->nr_vcpu_words * 64);
	fclose(f);
}

void hvctl_watch_describe(char *buf, size_t len, const struct hvc_watch *w)
{
	char a[DURATION_LEN], b[DURATION_LEN], vcpus[128];
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "?");
		return;
	}
	if (w->exit_ns)
		fprintf(f, "exit %s %s%s, ", duration_exact_str(a, w->exit_ns),
			threshold_on_name(w->exit_on),
			w->halt_triggers ? " with halt" : "");
	if (w->stall_ns)
		fprintf(f, "stall %s/%s, ", duration_exact_str(a, w->stall_ns),
			duration_exact_str(b, w->stall_window_ns));
	if (w->preempt_ns)
		fprintf(f, "preempted %s, ",
			duration_exact_str(a, w->preempt_ns));
	if (w->irq_ns)
		fprintf(f, "irq latency %s, ", duration_exact_str(a, w->irq_ns));
	if (w->mark_triggers && w->mark_pid)
		fprintf(f, "guest marks of vm %u, ", w->mark_pid);
	else if (w->mark_triggers)
		fprintf(f, "guest marks, ");
	if (w->history)
		fprintf(f, "history %u", w->history);
	else
		fprintf(f, "history %u (default)", HVTRACE_WATCH_HISTORY_DEFAULT);
	fprintf(f, ", post %s",
		duration_exact_str(a, w->has_post ? w->post_ns :
				   HVTRACE_WATCH_POST_NS_DEFAULT));
	fprintf(f, ", rate %u/min per vCPU, %u/min in all",
		w->rate ? w->rate : HVTRACE_WATCH_RATE_DEFAULT,
		w->rate_total ? w->rate_total : HVTRACE_WATCH_RATE_TOTAL_DEFAULT);
	vcpu_list(vcpus, sizeof(vcpus), w);
	if (w->pid)
		fprintf(f, ", vm %u", w->pid);
	fprintf(f, ", vcpus %s", vcpus);
	fclose(f);
}

void hvctl_watch_json(struct out *o, const struct hvc_watch *w)
{
	char vcpus[128];

	out_u64(o, "exit_ns", NULL, w->exit_ns);
	if (w->exit_ns) {
		out_str(o, "exit_on", NULL, threshold_on_name(w->exit_on));
		out_bool(o, "halt_triggers", NULL, w->halt_triggers);
	}
	out_u64(o, "stall_ns", NULL, w->stall_ns);
	out_u64(o, "stall_window_ns", NULL, w->stall_window_ns);
	out_u64(o, "preempt_ns", NULL, w->preempt_ns);
	out_u64(o, "irq_ns", NULL, w->irq_ns);
	out_bool(o, "mark_triggers", NULL, w->mark_triggers);
	out_u64(o, "mark_pid", NULL, w->mark_pid);
	out_u64(o, "history", NULL, w->history);
	out_u64(o, "post_ns", NULL, w->post_ns);
	out_u64(o, "rate", NULL, w->rate);
	out_u64(o, "rate_total", NULL, w->rate_total);
	out_u64(o, "pid", NULL, w->pid);
	vcpu_list(vcpus, sizeof(vcpus), w);
	out_str(o, "vcpus", NULL, vcpus);
}

/* What went wrong writing a capture, kept to be said in context. */
static void keep_err(const char *msg, void *data)
{
	snprintf(data, WATCH_PATH_LEN, "%s", msg);
}

/*
 * Write CAP: 0; 1 when a full disk dropped it (said here, counted: no
 * failure); or a negative errno, the error to the sink that was set.
 */
static int write_capture(struct watch_state *st, const struct hvc_capture *cap,
			 const struct capture_story *story, char *path)
{
	char msg[WATCH_PATH_LEN] = "";
	hvc_err_sink sink;
	void *data;
	int ret;

	hvc_get_err_sink(&sink, &data);
	hvc_set_err_sink(keep_err, msg);
	ret = watch_capture_write(&st->wd, cap, story, path);
	hvc_set_err_sink(sink, data);
	if (ret == -ENOSPC || ret == -EDQUOT) {
		st->disk_dropped++;
		fprintf(stderr, "hvctl: %s: capture %" PRIu64 " (vm %u vcpu %u) "
			"dropped, %" PRIu64 " so far for a full disk; going on\n",
			msg, cap->id, cap->vm_id, cap->vcpu_id,
			st->disk_dropped);
		return 1;
	}
	if (ret)
		hvc_err(-ret, "%s", msg);
	return ret;
}

/* One capture: its story, written, said in one line, the oldest pruned. */
static int on_capture(const struct hvc_capture *cap, void *data)
{
	struct watch_state *st = data;
	char path[WATCH_PATH_LEN], when[32], line[1024];
	struct capture_story story;
	struct vm_ident id;
	unsigned int trig;
	struct out o;
	int ret;

	/* FIRST_SEQ up to END_SEQ: a capture short of some is said. */
	if (cap->end_seq - cap->first_seq != cap->nr_events)
		fprintf(stderr, "hvctl: warning: capture %" PRIu64 " holds %u "
			"records, the module numbered %" PRIu64 " (%" PRIu64
			" to %" PRIu64 ")\n", cap->id, cap->nr_events,
			cap->end_seq - cap->first_seq, cap->first_seq,
			cap->end_seq - 1);
	trig = capture_find_seq(cap->events, cap->nr_events, cap->trigger_seq);
	if (trig == cap->nr_events)
		fprintf(stderr, "hvctl: warning: capture %" PRIu64 " lacks its "
			"trigger record (%" PRIu64 ")\n", cap->id,
			cap->trigger_seq);
	/*
	 * The module read both clocks as it copied the capture: its times
	 * are dated right however long the watch has run (local_clock()
	 * and the realtime clock drift apart by ppm).
	 */
	if (cap->realtime_ns)
		st->env->clock_offset_ns = (int64_t)(cap->realtime_ns -
						     cap->clock_ns);
	if (capture_story(&story, cap, cap->events, cap->nr_events, trig))
		return -ENOMEM;
	vm_ident_read(cap->vm_pid, &id);
	snprintf(story.vm_name, sizeof(story.vm_name), "%s", id.name);
	ret = write_capture(st, cap, &story, path);
	if (ret < 0) {
		st->failed = true;
		return ret;
	}
	if (ret)
		return 0;	/* dropped: the disk is full */
	st->captures++;
	if (hvctl_json) {
		out_init(&o, stdout, true);
		out_open_object(&o, NULL);
		capture_story_json(&o, &story, st->wd.env->clock_offset_ns,
				   path, 0, 0);
		out_close_object(&o);
		out_end(&o);
	} else {
		capture_time_text(when, sizeof(when), cap->trigger_ts,
				st->wd.env->clock_offset_ns, "%H:%M:%S", "");
		capture_story_line(line, sizeof(line), &story);
		printf("%s %s -> %s\n", when, line, path);
	}
	fflush(stdout);
	watch_prune(&st->wd);
	return 0;
}

/* Say what the module and the disk did not capture, when it changes. */
static void say_counters(struct watch_state *st,
			 const struct hvc_watch_status *w)
{
	if (w->dropped == st->said_dropped && st->disk_dropped == st->said_disk &&
	    w->suppressed_busy == st->said_busy &&
	    w->suppressed_rate == st->said_rate &&
	    w->suppressed_total == st->said_total &&
	    w->no_history == st->said_no_history)
		return;
	st->said_dropped = w->dropped;
	st->said_disk = st->disk_dropped;
	st->said_busy = w->suppressed_busy;
	st->said_rate = w->suppressed_rate;
	st->said_total = w->suppressed_total;
	st->said_no_history = w->no_history;
	if (hvctl_json) {
		struct out o;

		out_init(&o, stdout, true);
		out_open_object(&o, NULL);
		out_u64(&o, "suppressed_busy", NULL, w->suppressed_busy);
		out_u64(&o, "suppressed_rate", NULL, w->suppressed_rate);
		out_u64(&o, "suppressed_total", NULL, w->suppressed_total);
		out_u64(&o, "dropped", NULL, w->dropped);
		out_u64(&o, "dropped_disk_full", NULL, st->disk_dropped);
		out_u64(&o, "no_history", NULL, w->no_history);
		out_close_object(&o);
		out_end(&o);
	} else {
		printf("suppressed: %" PRIu64 " busy, %" PRIu64 " rate, %"
		       PRIu64 " total; dropped: %" PRIu64 " unread, %" PRIu64
		       " disk full; no history: %" PRIu64 " vCPUs\n",
		       w->suppressed_busy, w->suppressed_rate,
		       w->suppressed_total, w->dropped, st->disk_dropped,
		       w->no_history);
	}
	fflush(stdout);
}

/* Read the captures there are, then the counters. */
static int take_captures(struct hvc *c, struct watch_state *st)
{
	struct hvc_status s = { 0 };
	int ret = hvc_captures_read(c, on_capture, st);

	if (!ret && !hvc_status_get(c, &s, false))
		say_counters(st, &s.watch);
	hvc_status_free(&s);
	return ret;
}

static int watch_loop(struct hvc *c, struct hvc *events,
		      struct watch_state *st)
{
	struct pollfd pfd = { .fd = hvc_fd(events), .events = POLLIN };

	while (!stop) {
		if (take_captures(c, st))
			return -1;
		if (stop)
			break;
		if (poll(&pfd, 1, POLL_MS) < 0 && errno != EINTR)
			return hvctl_err("poll: %s", strerror(errno)), -1;
		/* CAPTURE or WATERMARK: either way, read what there is. */
		hvc_notifications(events);
	}
	/* What closed before the signal is written before we disarm. */
	return take_captures(c, st) ? -1 : 0;
}

static void catch_signals(void)
{
	/*
	 * SA_RESTART: a signal in the middle of a READ_CAPTURES dump must not
	 * cut it (what it hands over is gone); poll() returns EINTR anyway
	 * (it is never restarted), so the loop ends at once.
	 */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int watch_run(int argc, char **argv)
{
	struct watch_opts *o = calloc(1, sizeof(*o));
	struct watch_state st = { 0 };
	struct hvc_status s = { 0 };
	struct hvc *c = NULL, *events = NULL;
	struct hvctl_host host;
	struct trace_env env;
	bool made = false, armed = false;
	char set[384], most[96];
	int ret = 1;

	if (!o)
		return hvctl_err("out of memory");
	if (hvctl_want_help(&hvctl_cmd_watch, argc, argv)) {
		free(o);
		return 0;
	}
	/* The command line and the directory, before the module hears of it. */
	ret = parse_opts(argc, argv, o);
	if (ret)
		goto out;
	ret = 1;
	st.wd = (struct watch_dir){
		.dir = o->c.dir, .keep = o->c.keep, .max_kib = o->c.max_kib,
		.env = &env,
	};
	st.env = &env;
	if (watch_dir_open(&st.wd, &made))
		goto out;
	if (hvc_open(&c) || hvc_status_get(c, &s, false))
		goto out;
	if (hvc_open(&events) || hvc_subscribe(events))
		goto out;
	st.wd.nr_cpus = s.nr_cpus ? s.nr_cpus : 1;
	hvctl_host_env(&host, &env, s.version);
	stop = 0;
	catch_signals();
	if (hvc_watch_start(c, &o->c.w))
		goto out;
	armed = true;
	/* What a killed run left: now that the watch is ours. */
	if (watch_dir_clean(&st.wd))
		goto out;
	/* Captures of earlier runs count toward --keep and --max-size. */
	watch_prune(&st.wd);
	hvctl_watch_describe(set, sizeof(set), &o->c.w);
	limits(most, sizeof(most), &o->c);
	fprintf(stderr, "watching: %s; captures into %s, %s (^C stops)\n",
		set, o->c.dir, most);
	ret = watch_loop(c, events, &st) ? 1 : 0;
	if (hvc_watch_stop(c))
		ret = 1;
	if (!hvctl_json)
		fprintf(stderr, "%u captures written, %" PRIu64 " dropped for a "
			"full disk\n", st.captures, st.disk_dropped);
out:
	/* Not armed: nothing changed, not even the directory. */
	if (made && !armed)
		rmdir(o->c.dir);
	hvc_status_free(&s);
	hvc_close(events);
	hvc_close(c);
	free(o);
	return ret;
}

const struct hvctl_cmd hvctl_cmd_watch = {
	.name = "watch",
	.run = watch_run,
	.usage = "[--exit DUR [--on PART]] [--stall X/Y] [--halt] "
		 "[--preempted DUR]\n"
		 "                 [--irq-latency DUR] [--guest-mark[=PID]]\n"
		 "                 [--history N] [--post DUR] [--rate N] "
		 "[--rate-total N]\n"
		 "                 [--vm PID] [--vcpu LIST] -o DIR\n"
		 "                 [--keep N|none] [--max-size SIZE|none] "
		 "[--config FILE]",
	.opts = watch_opts,
	.summary = "catch vCPU stalls unattended, each into DIR as a capture\n"
		   "(the exits that led up to it, who preempted the vCPU) with\n"
		   "a line that tells its story, until ^C. --irq-latency: an\n"
		   "interrupt delivered that long after its raise triggers (where\n"
		   "hvctl status says delivery is timed). --guest-mark: a guest's\n"
		   "mark (CPUID leaf 0x48565400, hvmark(1)) triggers too; =PID: only\n"
		   "the marks of that VMM's VMs, the others are still recorded;\n"
		   "--config: hvtrace.conf(5)'s watch.* keys, under the options",
};
