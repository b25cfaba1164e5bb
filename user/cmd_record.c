// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl record: drain the module's rings to a trace directory until the
 * duration ends or SIGINT/SIGTERM, then finalize. It sleeps on the
 * module's watermark notification (with a short timeout so quiet rings
 * still reach the disk), drains in large batches, and holds only one
 * packet per CPU in memory whatever the event rate.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/hvtrace.h>

#include "config_req.h"
#include "duration.h"
#include "hvctl.h"
#include "nl.h"
#include "status_fetch.h"
#include "trace_format.h"
#include "trace_write.h"

#define MAX_VMS		256
#define POLL_MS		200	/* drain at least this often */
#define FLUSH_NS	1000000000ULL	/* partial packets reach disk */

struct rec_opts {
	const char *dir;
	uint64_t duration_ns;
	bool quiet;
	int nconfig;		/* arguments forwarded to SET_CONFIG */
};

struct rec_state {
	struct trace_writer *w;
	unsigned int nr_cpus;
	uint64_t *base_lost;	/* per CPU, at start */
	uint64_t *lost;		/* per CPU, since start */
	uint64_t lost_total;
	pid_t vm_pids[MAX_VMS];
	uint32_t vm_ids[MAX_VMS];
	unsigned int nr_vms;
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

static void note_vm(struct rec_state *st, const struct hvtrace_event *ev)
{
	for (unsigned int i = 0; i < st->nr_vms; i++)
		if (st->vm_pids[i] == (pid_t)ev->vm_pid)
			return;
	if (st->nr_vms < MAX_VMS) {
		st->vm_pids[st->nr_vms] = ev->vm_pid;
		st->vm_ids[st->nr_vms++] = ev->vm_id;
	}
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

static int drain_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const struct hvtrace_event *ev;
	struct rec_state *st = data;
	unsigned int cpu;
	size_t n;

	if (hvnl_parse(nlh, tb, HVTRACE_A_MAX) < 0)
		return MNL_CB_ERROR;
	if (!tb[HVTRACE_A_EVENTS_CPU])
		return MNL_CB_OK;
	cpu = mnl_attr_get_u32(tb[HVTRACE_A_EVENTS_CPU]);
	set_lost(st, cpu, hvnl_u64(tb[HVTRACE_A_EVENTS_LOST]),
		 hvnl_u64(tb[HVTRACE_A_EVENTS_OVERWRITTEN]));
	if (!tb[HVTRACE_A_EVENTS] || st->failed)
		return MNL_CB_OK;
	ev = mnl_attr_get_payload(tb[HVTRACE_A_EVENTS]);
	n = mnl_attr_get_payload_len(tb[HVTRACE_A_EVENTS]) / sizeof(*ev);
	for (size_t i = 0; i < n; i++) {
		note_vm(st, &ev[i]);
		if (trace_append(st->w, &ev[i])) {
			st->failed = true;
			break;
		}
	}
	return MNL_CB_OK;
}

static int drain(struct hvnl *nl, struct rec_state *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	if (hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_READ_EVENTS,
				       NLM_F_DUMP), drain_cb, st))
		return -1;
	return st->failed ? -1 : 0;
}

/*
 * Status: CPUs, version, a reader already draining; and per CPU (the
 * status dump) what was lost so far, which the trace does not count.
 */
static int take_status(struct hvnl *nl, struct rec_state *st)
{
	struct status s = { 0 };
	unsigned int n;
	int ret = -1;

	if (status_fetch(nl, &s, true))
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
		const struct acct_row *r = &s.cpus[i];

		if (r->cpu < st->nr_cpus)
			st->base_lost[r->cpu] = r->n[HVTRACE_ACCT_LOST] +
						r->n[HVTRACE_ACCT_OVERWRITTEN];
	}
	ret = 0;
out:
	status_free(&s);
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

/*
 * The VM's name as operators know it: QEMU's "-name guest=NAME,..." or
 * "-name NAME"; else the VMM's command name in brackets.
 */
static void vm_name(pid_t pid, char *out, size_t len)
{
	char path[64], args[8192], *p, *end;
	FILE *f;
	size_t n;

	snprintf(out, len, "%s", "");
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(args, 1, sizeof(args) - 1, f);
	fclose(f);
	args[n] = '\0';
	end = args + n;
	for (p = args; p < end; p += strlen(p) + 1) {
		char *v = p + strlen(p) + 1;

		if (strcmp(p, "-name") || v >= end)
			continue;
		if (!strncmp(v, "guest=", 6))
			v += 6;
		snprintf(out, len, "%.*s", (int)strcspn(v, ","), v);
		/* One line of vms.tsv: no tab or line break in the name. */
		for (char *c = out; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		return;
	}
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
	for (unsigned int i = 0; i < st->nr_vms; i++) {
		char name[64];

		vm_name(st->vm_pids[i], name, sizeof(name));
		fprintf(f, "%d\t%u\t%s\n", st->vm_pids[i], st->vm_ids[i], name);
	}
	return fclose(f) ? -1 : ret;
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

static int record_loop(struct hvnl *nl, struct hvnl *events,
		       struct rec_state *st, const struct rec_opts *o)
{
	uint64_t start = st->start, last_flush = start;
	uint64_t last_progress = start;
	bool tty = !o->quiet && isatty(STDERR_FILENO);
	struct pollfd pfd = { .fd = hvnl_fd(events), .events = POLLIN };

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
		hvnl_discard_pending(events);
		if (drain(nl, st))
			return -1;
		now = now_ns(CLOCK_MONOTONIC);
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

/* Forward threshold/filter/buffer options as one SET_CONFIG. */
static int apply_config(int argc, char **argv)
{
	char *args[32] = { "filter" };
	int n = 1, ret = 0;

	for (int i = 0; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		char *one[] = { NULL, (char *)v, NULL, NULL, NULL };

		if (!strcmp(k, "--threshold")) {
			one[0] = "set-threshold";
			ret = hvctl_cmd_set_threshold.run(2, one);
		} else if (!strcmp(k, "--buffer-size")) {
			one[0] = "buffer";
			one[1] = "--size";
			one[2] = (char *)v;
			ret = hvctl_cmd_buffer.run(3, one);
		} else if (!strcmp(k, "--mode")) {
			one[0] = "buffer";
			one[1] = "--mode";
			one[2] = (char *)v;
			ret = hvctl_cmd_buffer.run(3, one);
		} else if (n + 2 < 32) {
			/* --pid P, --vcpu L, ... become "pid P vcpu L ..." */
			args[n++] = (char *)k + 2;
			args[n++] = (char *)v;
		}
		if (ret)
			return ret;
	}
	return n > 1 ? hvctl_cmd_filter.run(n, args) : 0;
}

static int parse_opts(int argc, char **argv, struct rec_opts *o,
		      char **cfg, int *ncfg)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_record;
	static const char *const forwarded[] = {
		"--threshold", "--buffer-size", "--mode", "--pid", "--vcpu",
		"--reason", "--rip", "--cpu",
	};
	const char *err;

	for (int i = 1; i < argc; i++) {
		bool fwd = false;

		for (size_t k = 0; k < sizeof(forwarded) / sizeof(*forwarded); k++)
			fwd |= !strcmp(argv[i], forwarded[k]);
		if (fwd) {
			if (i + 1 == argc)
				return hvctl_usage_err(cmd, "%s needs a value", argv[i]);
			if (*ncfg + 2 > 30)
				return hvctl_usage_err(cmd, "too many options");
			cfg[(*ncfg)++] = argv[i];
			cfg[(*ncfg)++] = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			o->dir = argv[++i];
		} else if (!strcmp(argv[i], "--duration") && i + 1 < argc) {
			if (duration_parse(argv[++i], &o->duration_ns, &err))
				return hvctl_usage_err(cmd, "--duration: %s", err);
			if (!o->duration_ns)
				return hvctl_usage_err(cmd, "--duration must be more than 0");
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			o->quiet = true;
		} else {
			return hvctl_usage_err(cmd, "unexpected argument '%s'", argv[i]);
		}
	}
	if (!o->dir)
		return hvctl_usage_err(cmd, "missing -o DIR");
	return 0;
}

static int record_run(int argc, char **argv)
{
	struct rec_opts o = { 0 };
	struct rec_state st = { 0 };
	char *cfg[32], buf[MNL_SOCKET_BUFFER_SIZE], host[256], vendor[64];
	struct hvnl *nl = NULL, *events = NULL;
	struct trace_env env;
	struct utsname uts;
	int ncfg = 0, ret = 1;

	if (hvctl_want_help(&hvctl_cmd_record, argc, argv))
		return 0;
	ret = parse_opts(argc, argv, &o, cfg, &ncfg);
	if (ret)
		return ret;
	ret = 1;
	nl = hvnl_open();
	if (!nl)
		return 1;
	events = hvnl_open();
	if (!events || hvnl_subscribe_events(events))
		goto out;
	if (take_status(nl, &st))
		goto out;
	if (ncfg && apply_config(ncfg, cfg))
		goto out;

	uname(&uts);
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	cpu_vendor(vendor, sizeof(vendor));
	env = (struct trace_env){
		.hostname = host, .kernel = uts.release, .cpu_vendor = vendor,
		.hvtrace_version = st.version,
		.clock_offset_ns = (int64_t)(now_ns(CLOCK_REALTIME) -
					     now_ns(CLOCK_MONOTONIC)),
	};
	st.w = trace_create(o.dir, st.nr_cpus, &env);
	if (!st.w || write_start_files(st.w, &env))
		goto out;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_START, 0), NULL,
		      NULL))
		goto out;
	st.start = now_ns(CLOCK_MONOTONIC);
	ret = record_loop(nl, events, &st, &o) ? 1 : 0;
	/* Stop, then take what is left: nothing drained is ever dropped. */
	hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_STOP, 0), NULL, NULL);
	if (!st.failed && drain(nl, &st))
		ret = 1;
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
	if (st.w && trace_finish(st.w))
		ret = 1;
	hvnl_close(events);
	hvnl_close(nl);
	free(st.base_lost);
	free(st.lost);
	return ret;
}

const struct hvctl_cmd hvctl_cmd_record = {
	.name = "record",
	.run = record_run,
	.usage = "-o DIR [--duration D] [--threshold D] [--pid P] [--vcpu LIST]\n"
		 "                  [--reason NAMES] [--rip MIN-MAX] [--cpu LIST]\n"
		 "                  [--buffer-size SIZE] [--mode discard|overwrite] [-q]",
	.summary = "record exits to a trace directory (CTF) until --duration or ^C",
};
