// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl exporter's parts on canned figures, for tests/exporter/run (no
 * module needed):
 *
 *   canned print         the metrics of tests/unit/metrics_canned.h's
 *                        structs, as the exporter writes them
 *   canned serve ADDR    the same served by the exporter's HTTP server
 *                        (user/hvctl/exporter_http.c) at ADDR:PORT
 *                        (port 0: any), "serving ADDR:PORT" on standard
 *                        output once it listens, until SIGTERM (exit 0)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter.h"
#include "metrics.h"
#include "metrics_canned.h"
#include "util.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
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

static int body(char **text, size_t *len, void *data)
{
	FILE *f = open_memstream(text, len);
	int ret;

	(void)data;
	if (!f)
		return -1;
	ret = write_canned(f);
	fclose(f);
	return ret;
}

static int serve(const char *addr)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct http_server srv;
	struct sockaddr_storage ss;
	sigset_t block, wait_mask;
	socklen_t len;
	int ret = 0;

	if (http_listen_addr(addr, &ss, &len) ||
	    http_server_open(&srv, &ss, len, body, NULL))
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	printf("serving %s\n", srv.where);
	fflush(stdout);
	while (!stop) {
		ret = http_server_poll(&srv, -1, &wait_mask);
		if (ret && ret != -EINTR)
			break;
		ret = 0;
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
	hvc_set_err_sink(print_err, NULL);
	if (argc == 2 && !strcmp(argv[1], "print"))
		return write_canned(stdout) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2]);
	fprintf(stderr, "usage: canned print | canned serve ADDR:PORT\n");
	return 2;
}
