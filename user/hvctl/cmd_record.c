// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl record: drain the module's rings to a trace directory until the
 * duration ends or SIGINT/SIGTERM, then finalize. It sleeps on the
 * module's watermark notification (with a short timeout so quiet rings
 * still reach the disk), drains in large batches, and holds only one
 * packet per CPU in memory whatever the event rate. The rings are read in
 * place, mapped from /dev/hvtrace; through netlink (a copy, and a system
 * call every few dozen records) only where the device node is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "duration.h"
#include "err.h"
#include "hvctl.h"
#include "qmp.h"
#include "trace_format.h"
#include "trace_write.h"
#include "vm_seen.h"
#include "vmm_map.h"

#define POLL_MS		200	/* drain at least this often */
#define FLUSH_NS	1000000000ULL	/* partial packets reach disk */
#define NAMES_NS	250000000ULL	/* new VMs named (vm_seen.h) */
#define QMP_SOCKETS_MAX	64	/* --qmp, at most */
#define MAPS_NS		1000000000ULL	/* the VMMs' maps asked again */
#define MAPS_BUSY_NS	10000000000ULL	/* ... a busy one after that */
#define QMP_START_MS	2000	/* a --qmp's answer, at the start and end */
#define QMP_AGAIN_MS	200	/* ... while draining: the rings wait */

struct rec_opts {
	const char *dir;
	uint64_t duration_ns;
	bool quiet;
	struct hvc_change ch;	/* thresholds, filters, buffers: one request */
	const char *qmp[QMP_SOCKETS_MAX];	/* VMM monitors (qmp.h) */
	unsigned int nr_qmp;
};

struct rec_state {
	struct trace_writer *w;
	struct hvc_rings *rings;	/* NULL: drained through netlink */
	unsigned int nr_cpus;
	uint64_t *base_lost;	/* per CPU, at start */
	uint64_t *lost;		/* per CPU, since start */
	uint64_t lost_total;
	struct vm_seen vms;
	struct vmm_map map;	/* the --qmp VMMs' devices */
	/*
	 * When to ask each --qmp again while recording: UINT64_MAX, its VMM
	 * is gone (asked at the end only); later, it was slow or busy.
	 */
	uint64_t qmp_next[QMP_SOCKETS_MAX];
	uint64_t vcpus_created;	/* when the VMs were last named */
	bool failed;
	uint64_t start;		/* CLOCK_MONOTONIC, recording began */
	char version[32];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Per-CPU counters in drain messages and status replies. */
static void set_lost(struct rec_state *st, unsigned int cpu, uint64_t lost,
		     uint64_t overwritten)
{
	uint64_t now = lost + overwritten;

	if (cpu >= st->nr_cpus)
		return;
	now = now > st->base_lost[cpu] ? now - st->base_lost[cpu] : 0;
	st->lost_total += now - st->lost[cpu];
	st->lost[cpu] = now;
	trace_set_discarded(st->w, cpu, now);
}

static int on_event(const struct hvtrace_event *ev, void *data)
{
	struct rec_state *st = data;

	if (st->failed)
		return -EIO;
	if (vm_seen_note(&st->vms, ev->vm_id, ev->vm_pid) ||
	    trace_append(st->w, ev)) {
		st->failed = true;
		return -EIO;
	}
	return 0;
}

static void on_cpu(unsigned int cpu, uint64_t lost, uint64_t overwritten,
		   void *data)
{
	set_lost(data, cpu, lost, overwritten);
}

static int drain(struct hvc *c, struct rec_state *st)
{
	struct hvc_drain_ops ops = {
		.event = on_event, .cpu = on_cpu, .data = st,
	};

	int ret = st->rings ? hvc_rings_drain(st->rings, &ops) :
			      hvc_drain(c, &ops);

	return ret || st->failed ? -1 : 0;
}

/*
 * Status: CPUs, version, a reader already draining; and per CPU (the
 * status dump) what was lost so far, which the trace does not count.
 */
static int take_status(struct hvc *c, struct rec_state *st)
{
	struct hvc_status s = { 0 };
	unsigned int n;
	int ret = -1;

	if (hvc_status_get(c, &s, true))
		goto out;
	if (s.reader) {
		hvctl_err("another reader is draining the buffers (is an hvctl record running?)");
		goto out;
	}
	snprintf(st->version, sizeof(st->version), "%s", s.version);
	st->nr_cpus = s.nr_cpus;
	n = st->nr_cpus ? st->nr_cpus : 1;
	st->base_lost = calloc(n, sizeof(uint64_t));
	st->lost = calloc(n, sizeof(uint64_t));
	if (!st->base_lost || !st->lost) {
		hvctl_err("out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < s.nr_cpu_rows; i++) {
		const struct hvc_acct_row *r = &s.cpus[i];

		if (r->cpu < st->nr_cpus)
			st->base_lost[r->cpu] = r->n[HVTRACE_ACCT_LOST] +
						r->n[HVTRACE_ACCT_OVERWRITTEN];
	}
	ret = 0;
out:
	hvc_status_free(&s);
	return ret;
}

static void cpu_vendor(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9) && strchr(line, ':')) {
			snprintf(buf, len, "%s", strchr(line, ':') + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

void hvctl_host_env(struct hvctl_host *h, struct trace_env *env,
		    const char *version)
{
	uname(&h->uts);
	gethostname(h->host, sizeof(h->host));
	h->host[sizeof(h->host) - 1] = '\0';
	cpu_vendor(h->vendor, sizeof(h->vendor));
	*env = (struct trace_env){
		.hostname = h->host, .kernel = h->uts.release,
		.cpu_vendor = h->vendor, .hvtrace_version = version,
		.clock_offset_ns = (int64_t)(now_ns(CLOCK_REALTIME) -
					     now_ns(CLOCK_MONOTONIC)),
	};
}

static int write_side_files(struct trace_writer *w, struct rec_state *st,
			    const char *stats_name)
{
	FILE *f = trace_open_file(w, stats_name);
	int ret = 0;

	if (!f || hvctl_write_stats_json(f))
		ret = -1;
	if (f && fclose(f))
		ret = -1;
	f = trace_open_file(w, TRACE_SIDE_DIR "/vms.tsv");
	if (!f)
		return -1;
	vm_seen_write(&st->vms, f);
	if (fclose(f))
		ret = -1;
	if (!st->map.nr)
		return ret;
	f = trace_open_file(w, TRACE_SIDE_DIR "/vmm-map.tsv");
	if (!f)
		return -1;
	vmm_map_sort(&st->map);
	vmm_map_write(&st->map, f);
	return fclose(f) ? -1 : ret;
}

/* Later a VMM may be gone: what it says is a note, not an error. */
static void note_sink(const char *msg, void *f)
{
	fprintf(f, "note: %s; its last map is kept\n", msg);
}

/* While recording, a VMM that does not answer keeps its last map. */
static void quiet_sink(const char *msg, void *data)
{
	(void)msg;
	(void)data;
}

enum ask { ASK_START, ASK_AGAIN, ASK_END };

/*
 * The memory maps of the VMMs --qmp names (vmm_map.h): asked before the
 * record changes anything (a socket that does not answer is an error,
 * and nothing happened), then about each MAPS_NS while recording (at
 * most QMP_AGAIN_MS each: the rings wait meanwhile) and at the end. An
 * answer replaces the VMM's map: the trace keeps the last one, so a
 * QEMU gone before the end is still named (said then).
 */
static int ask_maps(struct rec_state *st, const struct rec_opts *o,
		    enum ask when)
{
	unsigned int ms = when == ASK_AGAIN ? QMP_AGAIN_MS : QMP_START_MS;
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	hvc_err_sink sink;
	void *data;
	int ret = 0, err;

	hvc_get_err_sink(&sink, &data);
	if (when == ASK_AGAIN)
		hvc_set_err_sink(quiet_sink, NULL);
	else if (when == ASK_END)
		hvc_set_err_sink(note_sink, stderr);
	for (unsigned int i = 0; i < o->nr_qmp; i++) {
		char *text = NULL;
		uint32_t pid;

		if (when == ASK_AGAIN && now < st->qmp_next[i])
			continue;
		err = qmp_memory_tree(o->qmp[i], ms, &pid, &text);
		if (err) {
			/* Gone (no socket, nobody listening), or slow. */
			st->qmp_next[i] = err == -ENOENT ||
					  err == -ECONNREFUSED ? UINT64_MAX :
					  now + MAPS_BUSY_NS;
			ret = -1;
			continue;
		}
		if (vmm_map_add_mtree(&st->map, pid, text) < 0) {
			hvc_err(errno, "%s: %s", o->qmp[i], errno == EINVAL ?
				"no memory map in QEMU's info mtree" :
				strerror(errno));
			ret = -1;
		}
		free(text);
	}
	hvc_set_err_sink(sink, data);
	return when == ASK_START ? ret : 0;
}

/*
 * A map whose process ran no VM the recording saw names nothing: the
 * socket's maker was not the VMM (a manager that passed it on).
 */
static void check_map_pids(const struct rec_state *st)
{
	for (unsigned int i = 0; i < st->map.nr; i++) {
		uint32_t pid = st->map.r[i].pid;
		bool seen = false;

		if (i && st->map.r[i - 1].pid == pid)
			continue;
		for (unsigned int j = 0; j < st->vms.nr && !seen; j++)
			seen = (uint32_t)st->vms.vms[j].pid == pid;
		if (!seen)
			fprintf(stderr, "note: --qmp: process %u made a monitor "
				"socket but ran no VM this recording saw: its "
				"map names no exit (was the socket made by "
				"another process than the VMM?)\n", pid);
	}
}

static int write_start_files(struct trace_writer *w, const struct trace_env *env)
{
	int ret = trace_write_host(w, env);
	FILE *f = trace_open_file(w, TRACE_SIDE_DIR "/config.json");

	if (!f || hvctl_write_config_json(f))
		ret = -1;
	if (f && fclose(f))
		ret = -1;
	f = trace_open_file(w, TRACE_SIDE_DIR "/stats-start.json");
	if (!f || hvctl_write_stats_json(f))
		ret = -1;
	if (f && fclose(f))
		ret = -1;
	return ret;
}

static void progress(struct rec_state *st, bool final)
{
	double secs = (double)(now_ns(CLOCK_MONOTONIC) - st->start) / 1e9;
	uint64_t ev = trace_events(st->w);

	fprintf(stderr, "%s%" PRIu64 " events, %.0f events/s, %.1f MiB, %" PRIu64
		" lost, %.1fs%s", final ? "" : "\r", ev,
		secs > 0 ? (double)ev / secs : 0.0,
		(double)trace_bytes(st->w) / (1 << 20), st->lost_total, secs,
		final ? "\n" : "   ");
}

/*
 * Name the live VMs (vm_seen.h) whenever vCPUs were created since the
 * last look: a VM is named while its VMM runs, though its first record
 * may be drained after the VM is gone (a short boot's last exits).
 */
static int name_live_vms(struct hvc *c, struct rec_state *st)
{
	struct hvc_status s = { 0 };
	struct hvc_stats a = { 0 };
	int ret = -1;

	if (hvc_status_get(c, &s, false))
		goto out;
	if (s.vcpus_created == st->vcpus_created) {
		ret = 0;
		goto out;
	}
	if (hvc_stats_get(c, &a))
		goto out;
	for (unsigned int i = 0; i < a.nr_vcpus; i++)
		if (!a.vcpus[i].gone &&
		    vm_seen_note(&st->vms, a.vcpus[i].vm_id, a.vcpus[i].vm_pid))
			goto out;
	st->vcpus_created = s.vcpus_created;
	ret = 0;
out:
	hvc_stats_free(&a);
	hvc_status_free(&s);
	return ret;
}

static int record_loop(struct hvc *c, struct hvc *events,
		       struct rec_state *st, const struct rec_opts *o)
{
	uint64_t start = st->start, last_flush = start;
	uint64_t last_progress = start, last_names = start, last_maps = start;
	bool tty = !o->quiet && isatty(STDERR_FILENO);
	struct pollfd pfd = { .fd = hvc_fd(events), .events = POLLIN };

	while (!stop) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int timeout = POLL_MS;

		if (o->duration_ns) {
			if (now - start >= o->duration_ns)
				break;
			if ((o->duration_ns - (now - start)) / 1000000 < POLL_MS)
				timeout = (o->duration_ns - (now - start)) / 1000000;
		}
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR)
			return hvctl_err("poll: %s", strerror(errno)), -1;
		hvc_discard_pending(events);
		if (drain(c, st))
			return -1;
		now = now_ns(CLOCK_MONOTONIC);
		if (now - last_names >= NAMES_NS) {
			if (name_live_vms(c, st))
				return -1;
			last_names = now;
		}
		if (o->nr_qmp && now - last_maps >= MAPS_NS) {
			ask_maps(st, o, ASK_AGAIN);
			last_maps = now;
		}
		if (now - last_flush >= FLUSH_NS) {
			if (trace_flush(st->w))
				return -1;
			last_flush = now;
		}
		if (tty && now - last_progress >= 500000000) {
			progress(st, false);
			last_progress = now;
		}
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

/*
 * After the change (a resize needs the rings unowned): from here the
 * rings are this record's until it ends.
 */
static int open_rings(struct rec_state *st)
{
	int ret = hvc_rings_open(&st->rings, st->nr_cpus);

	if (ret == -ENOENT) {
		fprintf(stderr, "note: /dev/%s is missing: draining through "
			"netlink, which costs more a record\n",
			HVTRACE_DEVICE_NAME);
		return 0;
	}
	return ret ? -1 : 0;
}

/*
 * The configuration options go into one change, checked as they come:
 * --threshold D is "set-threshold D", --pid P "filter pid P", and so on.
 */
static int threshold_opt(void *p, const char *opt, const char *v)
{
	struct hvc_change *ch = &((struct rec_opts *)p)->ch;

	if (hvc_parse_threshold(v, &ch->threshold_ns))
		return hvctl_usage(&hvctl_cmd_record);
	ch->set |= HVC_CH_THRESHOLD;
	ch->threshold_on = HVTRACE_ON_TOTAL;
	hvc_change_typed(ch, HVTRACE_CFG_THRESHOLD_NS, opt, v);
	hvc_change_typed(ch, HVTRACE_CFG_THRESHOLD_ON, opt, v);
	return 0;
}

static int buffer_size_opt(void *p, const char *opt, const char *v)
{
	int ret = hvc_change_buffer_size(&((struct rec_opts *)p)->ch, opt, v);

	return ret ? hvctl_change_err(&hvctl_cmd_record, ret) : 0;
}

static int mode_opt(void *p, const char *opt, const char *v)
{
	int ret = hvc_change_mode(&((struct rec_opts *)p)->ch, opt, v);

	return ret ? hvctl_change_err(&hvctl_cmd_record, ret) : 0;
}

static int qmp_opt(void *p, const char *opt, const char *v)
{
	struct rec_opts *o = p;

	if (o->nr_qmp == QMP_SOCKETS_MAX)
		return hvctl_usage_err(&hvctl_cmd_record, "more than %d %s",
				       QMP_SOCKETS_MAX, opt);
	o->qmp[o->nr_qmp++] = v;
	return 0;
}

/* --pid, --vcpu, ...: the filter of that kind. */
static int filter_opt(void *p, const char *opt, const char *v)
{
	int ret = hvc_change_filter(&((struct rec_opts *)p)->ch, opt, opt + 2, v);

	return ret ? hvctl_change_err(&hvctl_cmd_record, ret) : 0;
}

static const struct hvctl_opt rec_opts[] = {
	OPT_STR("-o", struct rec_opts, dir, "@dir"),
	OPT_DURATION("--duration", struct rec_opts, duration_ns, 1),
	OPT_CALL("--threshold", threshold_opt, NULL),
	OPT_CALL("--pid", filter_opt, NULL),
	OPT_CALL("--vcpu", filter_opt, NULL),
	OPT_CALL("--reason", filter_opt, "@reason"),
	OPT_CALL("--rip", filter_opt, NULL),
	OPT_CALL("--cpu", filter_opt, NULL),
	OPT_CALL("--buffer-size", buffer_size_opt, NULL),
	OPT_CALL("--mode", mode_opt, "discard overwrite"),
	OPT_CALL("--qmp", qmp_opt, NULL),
	{ .name = "--quiet", .alias = "-q", .kind = HVCTL_OPT_FLAG,
	  .off = offsetof(struct rec_opts, quiet) },
	OPT_END,
};

static int parse_opts(int argc, char **argv, struct rec_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_record;
	int n, ret = hvctl_parse_opts(cmd, argc, argv, o, &n);

	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 0);
	if (ret)
		return ret;
	if (!o->dir)
		return hvctl_usage_err(cmd, "missing -o DIR");
	return 0;
}

/*
 * Recording could not start after the change was applied: put back what
 * it changed, as BEFORE had it, and say what became of it either way.
 */
static void put_back(struct hvc *c, const struct hvc_change *ch,
		     const struct hvc_config *before)
{
	struct hvc_change *undo = malloc(sizeof(*undo));

	if (undo) {
		hvc_change_undo(undo, ch, before);
		if (!hvc_config_set(c, undo)) {
			fprintf(stderr, "note: the configuration is back as it "
				"was before this record\n");
			free(undo);
			return;
		}
		free(undo);
	}
	hvctl_err("the configuration given to record stays applied ('hvctl "
		  "config' shows it)");
}

static int record_run(int argc, char **argv)
{
	struct rec_opts o = { 0 };
	struct hvc_config before = { 0 };
	struct rec_state st = { 0 };
	struct hvc *c = NULL, *events = NULL;
	struct hvctl_host host;
	struct trace_env env;
	bool applied = false;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_record, argc, argv))
		return 0;
	/* All of the command line is good before the module hears of it. */
	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	ret = 1;
	if (ask_maps(&st, &o, ASK_START)) {
		vmm_map_free(&st.map);
		return 1;
	}
	if (hvc_open(&c))
		goto out;
	if (hvc_open(&events) || hvc_subscribe(events))
		goto out;
	if (take_status(c, &st))
		goto out;
	/* What the change replaces, to put it back if recording fails to start. */
	if (o.ch.set && hvc_config_get(c, &before))
		goto out;

	hvctl_host_env(&host, &env, st.version);
	/* The directory before the change: a bad -o changes nothing. */
	st.w = trace_create(o.dir, st.nr_cpus, &env);
	if (!st.w)
		goto out;
	if (o.ch.set && hvc_config_set(c, &o.ch)) {
		trace_discard(st.w);
		st.w = NULL;
		goto out;
	}
	applied = o.ch.set;
	/* Its config.json is the configuration this change made. */
	if (write_start_files(st.w, &env))
		goto out;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (name_live_vms(c, &st) || open_rings(&st) || hvc_start(c))
		goto out;
	applied = false;
	st.start = now_ns(CLOCK_MONOTONIC);
	ret = record_loop(c, events, &st, &o) ? 1 : 0;
	/* Stop, then take what is left: nothing drained is ever dropped. */
	hvc_stop(c);
	if (!st.failed && drain(c, &st))
		ret = 1;
	ask_maps(&st, &o, ASK_END);
	vmm_map_sort(&st.map);
	check_map_pids(&st);
	if (write_side_files(st.w, &st, TRACE_SIDE_DIR "/stats-end.json"))
		ret = 1;
	if (!o.quiet)
		progress(&st, true);
	/* A newer module's kinds of record: never dropped without a word. */
	if (trace_skipped(st.w))
		fprintf(stderr, "note: %" PRIu64 " records of a type this hvctl "
			"does not know were left out of the trace\n",
			trace_skipped(st.w));
out:
	/* First: putting a resize back needs the rings unowned. */
	hvc_rings_close(st.rings);
	if (applied)
		put_back(c, &o.ch, &before);
	if (st.w && trace_finish(st.w))
		ret = 1;
	hvc_config_free(&before);
	hvc_close(events);
	hvc_close(c);
	free(st.base_lost);
	vm_seen_free(&st.vms);
	vmm_map_free(&st.map);
	free(st.lost);
	return ret;
}

const struct hvctl_cmd hvctl_cmd_record = {
	.name = "record",
	.run = record_run,
	.usage = "-o DIR [--duration D] [--threshold D] [--pid P] [--vcpu LIST]\n"
		 "                  [--reason NAMES] [--rip MIN-MAX] [--cpu LIST]\n"
		 "                  [--buffer-size SIZE] [--mode discard|overwrite]\n"
		 "                  [--qmp SOCKET]... [-q]",
	.opts = rec_opts,
	.summary = "record exits to a trace directory (CTF) until --duration or ^C;\n"
		   "--qmp SOCKET (a QEMU's QMP monitor, up to 64) keeps that VMM's\n"
		   "memory map, asked at the start (it must answer), each second\n"
		   "and at the end, so the trace names the device of each MMIO exit",
};
