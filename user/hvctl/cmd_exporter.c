// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl exporter: hvtrace's metrics (user/lib/metrics.h) for Prometheus,
 * at http://ADDR:PORT/metrics (exporter_http.c) and/or as
 * node_exporter's textfile (exporter_textfile.c), each time read fresh
 * from the module, until SIGINT or SIGTERM. The module may come and go:
 * while it cannot be read the metrics say hvtrace_up 0 (the reason is
 * logged once), and the next scrape opens a session anew (a reloaded
 * module's family has a new id).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "client.h"
#include "config_file.h"
#include "duration.h"
#include "exporter.h"
#include "hvctl.h"
#include "metrics.h"
#include "vm_ident.h"

#define INTERVAL_NS_DEFAULT	(15 * 1000000000ULL)
/* The module's first ABI with HVTRACE_A_SINCE_LOAD. */
#define SINCE_LOAD_ABI		4
/* Room for the reason the module could not be read. */
#define WHY_LEN			256

struct exporter_opts {
	const char *listen;		/* NULL: not given */
	const char *textfile;		/* DIR */
	const char *config;		/* FILE */
	uint64_t interval_ns;		/* 0: not given */
	bool once;
	/* Where --config's values are kept. */
	char listen_buf[HVC_LISTEN_LEN];
	char textfile_buf[HVC_WATCH_DIR_LEN];
};

struct scraper {
	struct hvc *c;			/* NULL: open it at the next scrape */
	bool down;			/* the last scrape could not read it */
	bool since_clear;		/* the session's module: before ABI 4 */
	struct utsname uts;
	struct metrics_written written;	/* each VM's reasons, as written */
	uint64_t age_ns;		/* the module's age at the last scrape */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The sink while the module is read: the reason, kept for one line. */
static void keep_why(const char *msg, void *data)
{
	snprintf(data, WHY_LEN, "%s", msg);
}

/*
 * The counters since load: hvctl clear never sets them back. A module
 * before ABI 4 (an upgrade leaves the loaded one in place) refuses the
 * request as an attribute it does not know: then those since its last
 * clear, said once a session.
 */
static int read_counters(struct scraper *sc, struct hvc_status *st,
			 struct hvc_stats *stats)
{
	int ret;

	if (!sc->since_clear) {
		ret = hvc_status_get_since_load(sc->c, st);
		if (ret != -EINVAL)
			return ret ? ret : hvc_stats_get_since_load(sc->c, stats);
	}
	ret = hvc_status_get(sc->c, st, false);
	if (ret)
		return ret;
	if (st->abi >= SINCE_LOAD_ABI)
		return hvc_err(EINVAL, "the module (ABI %u) refused the "
			       "counters since load", st->abi);
	if (!sc->since_clear)
		fprintf(stderr, "hvctl: warning: the module (%s, ABI %u) "
			"keeps no counters since load (ABI %d): until it is "
			"reloaded, hvctl clear sets the metrics' counters "
			"back, and hvtrace_exits_total and "
			"hvtrace_exit_seconds_total have no samples\n",
			st->version, st->abi, SINCE_LOAD_ABI);
	sc->since_clear = true;
	return hvc_stats_get(sc->c, stats);
}

static int read_module(struct scraper *sc, struct hvc_status *st,
		       struct hvc_stats *stats, char *why)
{
	hvc_err_sink sink;
	void *data;
	int ret = 0;

	hvc_get_err_sink(&sink, &data);
	hvc_set_err_sink(keep_why, why);
	if (!sc->c)
		ret = hvc_open(&sc->c);
	if (!ret)
		ret = read_counters(sc, st, stats);
	hvc_set_err_sink(sink, data);
	if (ret) {
		hvc_close(sc->c);
		sc->c = NULL;
		sc->since_clear = false;	/* it may be reloaded */
	}
	return ret;
}

/* The live VMs of a scrape, each named once (vm_ident.h). */
struct vm_names {
	struct metrics_vm *vms;
	struct vm_ident *ids;
	unsigned int nr;
};

static int name_vms(struct vm_names *n, const struct hvc_stats *s)
{
	n->vms = calloc(s->nr_vcpus + 1, sizeof(*n->vms));
	n->ids = calloc(s->nr_vcpus + 1, sizeof(*n->ids));
	if (!n->vms || !n->ids)
		return hvc_err(ENOMEM, "out of memory for the VMs' names");
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];
		unsigned int j;

		if (v->gone)
			continue;
		for (j = 0; j < n->nr && n->vms[j].vm_id != v->vm_id; j++)
			;
		if (j < n->nr)
			continue;
		vm_ident_read(v->vm_pid, &n->ids[j]);
		n->vms[j] = (struct metrics_vm){
			.vm_id = v->vm_id, .pid = v->vm_pid,
			.name = n->ids[j].name, .uuid = n->ids[j].uuid,
		};
		n->nr++;
	}
	return 0;
}

/* The metrics now, as text (http_body_fn): 0 or -errno (sink told). */
static int scrape(char **text, size_t *len, void *data)
{
	struct scraper *sc = data;
	struct hvc_status st = { 0 };
	struct hvc_stats stats = { 0 };
	struct vm_names names = { 0 };
	char why[WHY_LEN] = "";
	bool up = !read_module(sc, &st, &stats, why);
	FILE *f;
	int ret;

	if (!up && !sc->down)
		fprintf(stderr, "hvctl: warning: the module cannot be read "
			"(%s): hvtrace_up is 0\n", why);
	else if (up && sc->down)
		fprintf(stderr, "hvctl: the module can be read again\n");
	sc->down = !up;
	/* Reloaded (its age went back): VM numbers start again. */
	if (!up || stats.age_ns < sc->age_ns)
		metrics_written_free(&sc->written);
	sc->age_ns = up ? stats.age_ns : 0;
	*text = NULL;
	*len = 0;
	f = open_memstream(text, len);
	if (!f) {
		ret = hvc_err(ENOMEM, "out of memory for the metrics");
	} else {
		ret = name_vms(&names, &stats) ? -ENOMEM :
		      metrics_write(f, &(struct metrics_in){
			.status = up ? &st : NULL,
			.stats = &stats,
			.kernel = sc->uts.release,
			.vms = names.vms, .nr_vms = names.nr,
			.written = &sc->written,
		});
		if (fclose(f) && !ret)
			ret = hvc_err(ENOMEM, "out of memory for the metrics");
	}
	if (ret) {
		free(*text);
		*text = NULL;
	}
	hvc_status_free(&st);
	hvc_stats_free(&stats);
	free(names.vms);
	free(names.ids);
	return ret;
}

static int write_textfile(struct scraper *sc, const char *dir)
{
	char *text;
	size_t len;
	int ret = scrape(&text, &len, sc);

	if (!ret)
		ret = textfile_write(dir, text, len);
	free(text);
	return ret;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Until a signal: the textfile every interval (a failed write is said
 * and tried again at the next), the HTTP server between. The signals
 * are blocked but while waiting (ppoll), so none is missed.
 */
static int run_loop(const struct exporter_opts *o, struct http_server *srv,
		    struct scraper *sc)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t next = mono_ns(), now;
	sigset_t block, wait_mask;
	int timeout_ms, ret = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	stop = 0;
	while (!stop) {
		timeout_ms = -1;
		if (o->textfile) {
			now = mono_ns();
			if (now >= next) {
				write_textfile(sc, o->textfile);
				next += o->interval_ns;
				now = mono_ns();
				if (next <= now)
					next = now + o->interval_ns;
			}
			timeout_ms = (next - now + 999999) / 1000000;
		}
		ret = http_server_poll(srv, timeout_ms, &wait_mask);
		if (ret && ret != -EINTR)
			break;
		ret = 0;
	}
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	return ret ? 1 : 0;
}

/*
 * CONFIG FILE: --config takes exporter.listen, exporter.textfile and
 * exporter.interval from FILE (hvtrace.conf(5), read and checked whole
 * by user/lib/config_file.c: one bad line of any key and nothing
 * starts); what the command line gives wins. With --once nothing is
 * served, so the file's listen is not taken.
 */
static int load_config(struct exporter_opts *o)
{
	struct hvc_conf *conf;
	unsigned int given;

	if (!o->config)
		return 0;
	conf = calloc(1, sizeof(*conf));
	if (!conf)
		return hvctl_err("out of memory");
	/* Its keys name no VM: the others' names are not looked up. */
	if (hvc_conf_read(o->config, 0, conf)) {
		free(conf);
		return 1;
	}
	given = conf->exporter.given;
	if (!o->listen && !o->once && given & (1U << HVC_EK_LISTEN)) {
		snprintf(o->listen_buf, sizeof(o->listen_buf), "%s",
			 conf->exporter.listen);
		o->listen = o->listen_buf;
	}
	if (!o->textfile && given & (1U << HVC_EK_TEXTFILE)) {
		snprintf(o->textfile_buf, sizeof(o->textfile_buf), "%s",
			 conf->exporter.textfile);
		o->textfile = o->textfile_buf;
	}
	if (!o->interval_ns && given & (1U << HVC_EK_INTERVAL))
		o->interval_ns = conf->exporter.interval_ns;
	free(conf);
	return 0;
}

static const struct hvctl_opt exporter_opts[] = {
	OPT_STR("--listen", struct exporter_opts, listen, NULL),
	OPT_STR("--textfile", struct exporter_opts, textfile, "@dir"),
	OPT_DURATION("--interval", struct exporter_opts, interval_ns,
		     1000000000),
	OPT_FLAG("--once", struct exporter_opts, once),
	OPT_STR("--config", struct exporter_opts, config, "@file"),
	OPT_END,
};

/* The command line as a whole: 0, or the usage error's status. */
static int check_opts(const struct hvctl_cmd *cmd,
		      const struct exporter_opts *o)
{
	if (o->once && !o->textfile)
		return hvctl_usage_err(cmd, "--once writes the textfile once: "
				       "it needs --textfile DIR");
	if (o->once && o->listen)
		return hvctl_usage_err(cmd, "--once writes the textfile and "
				       "exits: it serves no --listen");
	if (o->interval_ns && !o->textfile)
		return hvctl_usage_err(cmd, "--interval is how often the "
				       "textfile is written: it needs "
				       "--textfile DIR");
	return 0;
}

static int exporter_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_exporter;
	struct exporter_opts o = { 0 };
	struct http_server srv = { .fd = -1 };
	struct scraper sc = { 0 };
	struct sockaddr_storage sa;
	socklen_t salen = 0;
	char every[DURATION_LEN];
	bool serve;
	int n, ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	ret = hvctl_parse_opts(cmd, argc, argv, &o, &n);
	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 0);
	if (!ret)
		ret = load_config(&o);
	if (!ret)
		ret = check_opts(cmd, &o);
	if (ret)
		return ret;
	if (!o.interval_ns)
		o.interval_ns = INTERVAL_NS_DEFAULT;
	serve = o.listen || !o.textfile;
	if (serve && http_listen_addr(o.listen ? o.listen : EXPORTER_LISTEN,
				      &sa, &salen))
		return hvctl_usage(cmd);
	if (o.textfile && textfile_check(o.textfile))
		return 1;
	uname(&sc.uts);
	if (o.once) {
		ret = write_textfile(&sc, o.textfile) ? 1 : 0;
		hvc_close(sc.c);
		metrics_written_free(&sc.written);
		return ret;
	}
	if (serve && http_server_open(&srv, &sa, salen, scrape, &sc))
		return 1;
	if (serve)
		fprintf(stderr, "exporter: serving http://%s/metrics\n",
			srv.where);
	if (o.textfile)
		fprintf(stderr, "exporter: writing %s/hvtrace.prom every %s\n",
			o.textfile, duration_exact_str(every, o.interval_ns));
	ret = run_loop(&o, &srv, &sc);
	http_server_close(&srv);
	hvc_close(sc.c);
	metrics_written_free(&sc.written);
	return ret;
}

const struct hvctl_cmd hvctl_cmd_exporter = {
	.name = "exporter",
	.run = exporter_run,
	.usage = "[--listen ADDR:PORT] [--textfile DIR [--interval DURATION] "
		 "[--once]]\n"
		 "                 [--config FILE]",
	.opts = exporter_opts,
	.summary = "serve hvtrace's metrics to Prometheus at\n"
		   "http://ADDR:PORT/metrics (127.0.0.1:" EXPORTER_PORT " by "
		   "default), and/or\nwrite them to DIR/hvtrace.prom for "
		   "node_exporter's textfile\ncollector every --interval "
		   "(15s; --once: once, then exit),\nuntil ^C or SIGTERM; "
		   "--config: the exporter.* keys of\nhvtrace.conf(5), under "
		   "what is typed",
};
