// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl exporter's parts on canned figures, for tests/exporter/run (no
 * module needed):
 *
 *   canned print [BYTES]       the metrics of tests/unit/metrics_canned.h's
 *                              structs, as the exporter writes them;
 *                              BYTES: then comment lines up to at least
 *                              BYTES (a large host's body)
 *   canned serve ADDR [BYTES]  the same served by the exporter's HTTP
 *                              server (user/hvctl/exporter_http.c) at
 *                              ADDR:PORT (port 0: any), "serving
 *                              ADDR:PORT" on standard output once it
 *                              listens, "counts ..." (struct http_counts
 *                              and the connections open) at each
 *                              SIGUSR1, until SIGTERM (exit 0)
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter.h"
#include "metrics.h"
#include "metrics_canned.h"
#include "util.h"

static volatile sig_atomic_t stop, say_counts;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		say_counts = 1;
	else
		stop = 1;
}

static int write_canned(FILE *f)
{
	/* A named VM, one with quotes to escape, one unnamed. */
	static const struct metrics_vm vms[] = {
		{ 1, 4242, "web1", "5eed0c1e-7a2b-4c3d-9e8f-0123456789ab" },
		{ 2, 5000, "db \"eu\"", "" },
		{ 3, 6000, "", "" },
	};
	struct hvc_status st;
	struct hvc_stats s;
	int ret;

	canned_status(&st);
	canned_stats(&s);
	ret = metrics_write(f, &(struct metrics_in){
		.status = &st, .stats = &s, .kernel = "6.12.0-canned",
		.vms = vms, .nr_vms = ARRAY_SIZE(vms),
	});
	hvc_stats_free(&s);
	return ret;
}

/* The canned metrics, then comment lines up to at least *DATA bytes. */
static int body(char **text, size_t *len, void *data)
{
	const size_t *pad = data;
	FILE *f = open_memstream(text, len);
	int ret;

	if (!f)
		return -1;
	ret = write_canned(f);
	while (!ret && ftell(f) < (long)*pad)
		fprintf(f, "# padding %054d\n", 0);
	fclose(f);
	return ret;
}

static void print_counts(const struct http_server *srv)
{
	const struct http_counts *c = &srv->counts;

	printf("counts accepted=%" PRIu64 " evicted=%" PRIu64 " expired=%"
	       PRIu64 " answered=%" PRIu64 " built=%" PRIu64 " open=%u\n",
	       c->accepted, c->evicted, c->expired, c->answered, c->built,
	       srv->nr);
	fflush(stdout);
}

static int serve(const char *addr, size_t pad)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct http_server srv;
	struct sockaddr_storage ss;
	sigset_t block, wait_mask;
	socklen_t len;
	int ret = 0;

	if (http_listen_addr(addr, &ss, &len) ||
	    http_server_open(&srv, &ss, len, body, &pad))
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGUSR1);
	printf("serving %s\n", srv.where);
	fflush(stdout);
	while (!stop) {
		ret = http_server_poll(&srv, -1, &wait_mask);
		if (ret && ret != -EINTR)
			break;
		ret = 0;
		if (say_counts)
			print_counts(&srv);
		say_counts = 0;
	}
	http_server_close(&srv);
	return ret ? 1 : 0;
}

static void print_err(const char *msg, void *data)
{
	(void)data;
	fprintf(stderr, "canned: %s\n", msg);
}

int main(int argc, char **argv)
{
	bool print = argc >= 2 && !strcmp(argv[1], "print");
	int nargs = print ? 2 : 3;
	size_t pad = argc > nargs ? strtoul(argv[nargs], NULL, 10) : 0;
	char *text = NULL;
	size_t len;
	int ret;

	hvc_set_err_sink(print_err, NULL);
	if (print && argc <= 3) {
		ret = body(&text, &len, &pad);
		if (!ret)
			fwrite(text, 1, len, stdout);
		free(text);
		return ret ? 1 : 0;
	}
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], pad);
	fprintf(stderr, "usage: canned print [BYTES] | "
		"canned serve ADDR:PORT [BYTES]\n");
	return 2;
}
