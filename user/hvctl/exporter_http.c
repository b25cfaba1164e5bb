// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's HTTP server (exporter.h): one thread, ppoll() over a
 * listening socket and at most EXPORTER_MAX_CONNS connections, each
 *
 *   READ  its request head, up to EXPORTER_MAX_REQUEST bytes
 *   WRITE the answer (for GET /metrics a fresh body), Connection: close
 *   DRAIN shut down for writing, what the client still sends read and
 *         dropped until it closes: closing with unread bytes would
 *         reset the connection and could lose the answer
 *
 * and closed EXPORTER_CONN_MS after its accept whatever its state.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exporter.h"
#include "err.h"
#include "prom_text.h"

enum conn_state { CONN_READ, CONN_WRITE, CONN_DRAIN };

/* How long an answered client may take to close. */
#define DRAIN_MS 1000

struct http_conn {
	int fd;
	enum conn_state state;
	uint64_t deadline_ms;
	size_t in_len;
	char in[EXPORTER_MAX_REQUEST];
	char *out;
	size_t out_len, out_off;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int http_listen_addr(const char *s, struct sockaddr_storage *sa,
		     socklen_t *len)
{
	const char *colon = strrchr(s, ':'), *port;
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	}, *res;
	char host[256];
	size_t hlen;
	int err;

	if (!colon)
		return hvc_err(EINVAL, "--listen '%s': ADDR:PORT wanted", s);
	port = colon + 1;
	hlen = colon - s;
	if (!*port || strspn(port, "0123456789") != strlen(port) ||
	    strlen(port) > 5 || atoi(port) > 65535)
		return hvc_err(EINVAL, "--listen '%s': port '%s' is no number "
			       "from 0 to 65535", s, port);
	/* "[::1]": an IPv6 address in brackets. */
	if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
		s++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host) || memchr(s, '[', hlen) ||
	    memchr(s, ']', hlen))
		return hvc_err(EINVAL, "--listen '%.*s': not an address",
			       (int)(colon - s), s);
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(hlen ? host : NULL, port, &hints, &res);
	if (err)
		return hvc_err(EINVAL, "--listen: address '%s': %s", host,
			       gai_strerror(err));
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* "ADDR:PORT" of what FD is bound to, into S->where. */
static void say_where(struct http_server *s)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[64], port[8];

	if (getsockname(s->fd, (struct sockaddr *)&sa, &len) ||
	    getnameinfo((struct sockaddr *)&sa, len, host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(s->where, sizeof(s->where), "?");
		return;
	}
	snprintf(s->where, sizeof(s->where),
		 sa.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

int http_server_open(struct http_server *s, const struct sockaddr_storage *sa,
		     socklen_t len, http_body_fn body, void *data)
{
	int one = 1;

	*s = (struct http_server){ .fd = -1, .body = body, .data = data };
	s->conns = calloc(EXPORTER_MAX_CONNS, sizeof(*s->conns));
	if (!s->conns)
		return hvc_err(ENOMEM, "out of memory");
	s->fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		       SOCK_CLOEXEC, 0);
	if (s->fd < 0 ||
	    setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (const struct sockaddr *)sa, len) ||
	    listen(s->fd, 64)) {
		int err = errno;

		say_where(s);
		http_server_close(s);
		return hvc_err(err, "listening for HTTP: %s", strerror(err));
	}
	say_where(s);
	return 0;
}

static void conn_close(struct http_server *s, struct http_conn *c)
{
	close(c->fd);
	free(c->out);
	/* The last one fills its slot: the table stays dense. */
	*c = s->conns[--s->nr];
}

void http_server_close(struct http_server *s)
{
	while (s->conns && s->nr)
		conn_close(s, &s->conns[0]);
	if (s->fd >= 0)
		close(s->fd);
	free(s->conns);
	s->conns = NULL;
	s->fd = -1;
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 505: return "HTTP Version Not Supported";
	default: return "Internal Server Error";
	}
}

/* C's answer for STATUS, in C->out. */
static void answer(struct http_server *s, struct http_conn *c, int status)
{
	char *body = NULL, *head = NULL, err[64];
	size_t blen = 0;
	int hlen;

	if (status == 200 && s->body(&body, &blen, s->data))
		status = 500;
	if (status != 200) {
		blen = snprintf(err, sizeof(err), "%d %s\n", status,
				reason_phrase(status));
		free(body);
		body = strdup(err);
	}
	hlen = asprintf(&head, "HTTP/1.1 %d %s\r\n"
			"Content-Type: %s\r\n"
			"Content-Length: %zu\r\n"
			"%s"
			"Connection: close\r\n\r\n", status,
			reason_phrase(status),
			status == 200 ? PROM_CONTENT_TYPE :
					"text/plain; charset=utf-8",
			blen, status == 405 ? "Allow: GET\r\n" : "");
	c->out = hlen < 0 || !body ? NULL : malloc(hlen + blen);
	if (!c->out) {
		free(body);
		free(hlen < 0 ? NULL : head);
		c->state = CONN_DRAIN;	/* nothing to say: only close */
		return;
	}
	memcpy(c->out, head, hlen);
	memcpy(c->out + hlen, body, blen);
	c->out_len = hlen + blen;
	c->out_off = 0;
	c->state = CONN_WRITE;
	free(head);
	free(body);
}

/* What C's socket has for it; false: close it. */
static bool conn_read(struct http_server *s, struct http_conn *c)
{
	char sink[4096];
	ssize_t n;
	int status;

	if (c->state == CONN_DRAIN) {
		n = recv(c->fd, sink, sizeof(sink), 0);
		return n > 0 || (n < 0 && errno == EAGAIN);
	}
	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (!n)
		return false;
	c->in_len += n;
	status = http_request_status(c->in, c->in_len);
	if (status)
		answer(s, c, status);
	return true;
}

/* Send what C has left; false: close it. */
static bool conn_write(struct http_conn *c)
{
	ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	c->out_off += n;
	if (c->out_off == c->out_len) {
		shutdown(c->fd, SHUT_WR);
		c->state = CONN_DRAIN;
		/* Its client closes when it has read the answer. */
		if (c->deadline_ms > now_ms() + DRAIN_MS)
			c->deadline_ms = now_ms() + DRAIN_MS;
	}
	return true;
}

/* The connection reading its request the longest, or NULL. */
static struct http_conn *oldest_reading(struct http_server *s)
{
	struct http_conn *old = NULL;

	for (unsigned int i = 0; i < s->nr; i++)
		if (s->conns[i].state == CONN_READ &&
		    (!old || s->conns[i].deadline_ms < old->deadline_ms))
			old = &s->conns[i];
	return old;
}

/* Take the waiting connections while there is room or one to drop. */
static void accept_all(struct http_server *s)
{
	struct http_conn *old;
	int fd;

	for (;;) {
		if (s->nr == EXPORTER_MAX_CONNS) {
			old = oldest_reading(s);
			if (!old)
				return;
			conn_close(s, old);
		}
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		s->conns[s->nr++] = (struct http_conn){
			.fd = fd,
			.state = CONN_READ,
			.deadline_ms = now_ms() + EXPORTER_CONN_MS,
		};
	}
}

/* Close the connections past their time; the next deadline, or 0. */
static uint64_t expire(struct http_server *s, uint64_t now)
{
	uint64_t next = 0;

	for (unsigned int i = 0; i < s->nr;) {
		struct http_conn *c = &s->conns[i];

		if (c->deadline_ms <= now) {
			conn_close(s, c);
			continue;
		}
		if (!next || c->deadline_ms < next)
			next = c->deadline_ms;
		i++;
	}
	return next;
}

int http_server_poll(struct http_server *s, int timeout_ms,
		     const sigset_t *mask)
{
	struct pollfd pfd[EXPORTER_MAX_CONNS + 1];
	uint64_t now = now_ms(), next = s->fd >= 0 ? expire(s, now) : 0;
	struct timespec ts, *tsp = NULL;
	unsigned int i, n = 0, first;
	int ret;

	if (next && (timeout_ms < 0 || next - now < (uint64_t)timeout_ms))
		timeout_ms = next - now;
	if (timeout_ms >= 0) {
		ts = (struct timespec){ timeout_ms / 1000,
					(timeout_ms % 1000) * 1000000L };
		tsp = &ts;
	}
	/* A full table of connections past reading: new ones wait. */
	if (s->fd >= 0 && (s->nr < EXPORTER_MAX_CONNS || oldest_reading(s)))
		pfd[n++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	first = n;
	for (i = 0; i < s->nr; i++)
		pfd[n++] = (struct pollfd){
			.fd = s->conns[i].fd,
			.events = s->conns[i].state == CONN_WRITE ? POLLOUT :
								     POLLIN,
		};
	ret = ppoll(pfd, n, tsp, mask);
	if (ret < 0)
		return errno == EINTR ? -EINTR :
		       hvc_err(errno, "poll: %s", strerror(errno));
	/*
	 * Backwards, so that closing one (the last moves into its slot)
	 * leaves the connections still to look at where they were.
	 */
	for (i = s->nr; i-- > 0;) {
		struct http_conn *c = &s->conns[i];
		short ev = pfd[first + i].revents;
		bool keep = true;

		if (ev & (POLLIN | POLLHUP | POLLERR))
			keep = conn_read(s, c);
		if (keep && (ev & POLLOUT || c->state == CONN_WRITE))
			keep = conn_write(c);
		if (!keep)
			conn_close(s, c);
	}
	if (first && pfd[0].revents & POLLIN)
		accept_all(s);
	return 0;
}
