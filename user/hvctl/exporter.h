/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl exporter's parts: the HTTP server (exporter_http.c) and its
 * request parser (exporter_request.c), the node_exporter textfile
 * (exporter_textfile.c); cmd_exporter.c drives them, and the metrics
 * themselves are user/lib/metrics.c's.
 *
 * One thread, one poll() over non-blocking sockets: a connection that
 * sends its request slowly, or never, or does not read its answer, holds
 * one slot of EXPORTER_MAX_CONNS for EXPORTER_CONN_MS at most, and while
 * the slots are full a new connection takes the place of an older one
 * (exporter_http.c says which), so slow clients cannot keep a scrape out.
 */
#ifndef HVCTL_EXPORTER_H
#define HVCTL_EXPORTER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/*
 * The default port: "FREE" in the Prometheus wiki's default port
 * allocations (the exporters' range 9100-9999) as stored copies show it
 * (docs/hvctl.8, the exporter command).
 */
#define EXPORTER_PORT		"9655"
#define EXPORTER_LISTEN		"127.0.0.1:" EXPORTER_PORT
#define EXPORTER_MAX_CONNS	16
/* The request line and headers, at most; more is 431. */
#define EXPORTER_MAX_REQUEST	8192
/* A connection's whole life, from accept to close. */
#define EXPORTER_CONN_MS	5000
/* While the slots are full, one address may keep this many of them. */
#define EXPORTER_PEER_CONNS	4
/* A body this young answers again: many scrapers cost one GET_STATS. */
#define EXPORTER_BODY_MS	1000
/* Out of descriptors: the listening socket rests this long. */
#define EXPORTER_ACCEPT_PAUSE_MS	100

/*
 * The answer to the request head at BUF (LEN bytes, not NUL-terminated,
 * as received so far): 0 while it is incomplete (no empty line yet, and
 * less than EXPORTER_MAX_REQUEST bytes); else an HTTP status: 200 for
 * GET /metrics (a query is ignored), 400 a malformed request line, 404
 * another path, 405 another method, 431 too large, 505 not HTTP/1.x.
 */
int http_request_status(const char *buf, size_t len);

/* A fresh response body into *BODY (malloc'd, *LEN bytes): 0 or -errno. */
typedef int (*http_body_fn)(char **body, size_t *len, void *data);

struct http_conn;

/* What a server did since it opened, for its tests (tests/exporter/). */
struct http_counts {
	uint64_t accepted;	/* connections; the next one's number */
	uint64_t evicted;	/* closed to make room for a new one */
	uint64_t expired;	/* closed EXPORTER_CONN_MS after their accept */
	uint64_t answered;	/* answers made, one a request at most */
	uint64_t built;		/* bodies made; the others were reused */
};

struct http_server {
	int fd;				/* listening; -1: none */
	struct http_conn *conns;	/* [EXPORTER_MAX_CONNS] */
	unsigned int nr;
	http_body_fn body;
	void *data;
	char *cached;			/* the last body, NULL: none */
	size_t cached_len;
	uint64_t cached_ms;		/* when it was made (CLOCK_MONOTONIC) */
	struct http_counts counts;
	uint64_t accept_ms;		/* out of descriptors: accept then */
	char where[64];			/* "127.0.0.1:9655", as bound */
};

/*
 * "ADDR:PORT" into an address to bind, as hvc_check_listen() takes it
 * (config_file.h: at most HVC_LISTEN_LEN - 1 bytes; ADDR an IPv4
 * address, an IPv6 one in brackets ("[::1]:9655") or a host name, empty
 * for every address; PORT 0 to 65535, 0: the kernel picks one). 0, or
 * -EINVAL with the sink told what was wrong.
 */
int http_listen_addr(const char *s, struct sockaddr_storage *sa,
		     socklen_t *len);
/* Listen at SA, serving BODY's text at /metrics: 0 or -errno (sink told). */
int http_server_open(struct http_server *s, const struct sockaddr_storage *sa,
		     socklen_t len, http_body_fn body, void *data);
/*
 * Wait for up to TIMEOUT_MS (-1: no limit), MASK the signal mask while
 * waiting, and serve what came: 0, -EINTR when a signal came, or another
 * -errno (sink told). With S->fd -1 it only waits. A 200's body is the
 * one made less than EXPORTER_BODY_MS ago, else a new one.
 */
int http_server_poll(struct http_server *s, int timeout_ms,
		     const sigset_t *mask);
void http_server_close(struct http_server *s);

/* DIR, for the textfile: a directory we may write in (sink told if not). */
int textfile_check(const char *dir);
/*
 * TEXT (LEN bytes) as DIR/hvtrace.prom, mode 0644: written into a new
 * file of a name no one had, DIR/.hvtrace.prom.XXXXXX, fsync'ed and
 * renamed over it, so the collector never reads half a file. 0, or
 * -errno with the sink told (and the new file removed).
 */
int textfile_write(const char *dir, const char *text, size_t len);

#endif /* HVCTL_EXPORTER_H */
