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
 * and closed EXPORTER_CONN_MS after its accept whatever its state; a
 * WRITE whose client is gone (POLLHUP, POLLERR) is closed at once, its
 * answer never made again.
 *
 * While all slots are taken, each new connection takes the place of an
 * older one, never of one accepted in the same pass (it would be reset
 * before it could send its request): one of the address that holds the
 * most slots when that is more than EXPORTER_PEER_CONNS (so one host
 * cannot crowd out the others), else one of anyone's; of those, the
 * oldest still reading its request, else the oldest answered (DRAIN: its
 * answer is in the kernel's hands), else the oldest not reading its
 * answer (WRITE).
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

#include "config_file.h"
#include "exporter.h"
#include "err.h"
#include "prom_text.h"

enum conn_state { CONN_READ, CONN_WRITE, CONN_DRAIN };

/* How long an answered client may take to close. */
#define DRAIN_MS 1000

struct http_conn {
	int fd;
	enum conn_state state;
	uint64_t serial;		/* counts.accepted at its accept */
	uint64_t deadline_ms;
	struct in6_addr peer;		/* IPv4 ones mapped: ::ffff:a.b.c.d */
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
	const char *colon = strrchr(s, ':'), *addr = s;
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	}, *res;
	char host[HVC_LISTEN_LEN];
	size_t hlen;
	int err;

	/* The grammar, the length and the messages are the config file's. */
	if (hvc_check_listen("--listen", s))
		return -EINVAL;
	hlen = colon - s;
	/* "[::1]": an IPv6 address in brackets (checked). */
	if (hlen && addr[0] == '[') {
		addr++;
		hlen -= 2;
	}
	memcpy(host, addr, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(hlen ? host : NULL, colon + 1, &hints, &res);
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
	/*
	 * An answer cut short is reset: its unsent bytes are not kept in
	 * the kernel for a client that does not read them.
	 */
	if (c->state == CONN_WRITE)
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER,
			   &(struct linger){ .l_onoff = 1, .l_linger = 0 },
			   sizeof(struct linger));
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
	free(s->cached);
	s->conns = NULL;
	s->cached = NULL;
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

/* A 200's body: the one made less than EXPORTER_BODY_MS ago, or a new one. */
static const char *current_body(struct http_server *s, size_t *len)
{
	uint64_t now = now_ms();

	if (!s->cached || now - s->cached_ms >= EXPORTER_BODY_MS) {
		free(s->cached);
		s->cached = NULL;
		s->counts.built++;
		if (s->body(&s->cached, &s->cached_len, s->data)) {
			free(s->cached);
			s->cached = NULL;
			return NULL;
		}
		s->cached_ms = now;
	}
	*len = s->cached_len;
	return s->cached;
}

/* C's answer for STATUS, in C->out. */
static void answer(struct http_server *s, struct http_conn *c, int status)
{
	const char *body = NULL;
	char *head = NULL, err[64];
	size_t blen = 0;
	int hlen;

	s->counts.answered++;
	if (status == 200 && !(body = current_body(s, &blen)))
		status = 500;
	if (status != 200) {
		blen = snprintf(err, sizeof(err), "%d %s\n", status,
				reason_phrase(status));
		body = err;
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
	c->out = hlen < 0 ? NULL : malloc(hlen + blen);
	if (!c->out) {
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
}

/*
 * What C's socket has for it, in READ or DRAIN (never in WRITE: a
 * request is answered once); false: close it.
 */
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

/* SA's address as an IPv6 one, so that a peer is one value. */
static void peer_of(const struct sockaddr_storage *sa, struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa->ss_family == AF_INET6) {
		*a = ((const struct sockaddr_in6 *)sa)->sin6_addr;
	} else if (sa->ss_family == AF_INET) {
		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		memcpy(&a->s6_addr[12],
		       &((const struct sockaddr_in *)sa)->sin_addr, 4);
	}
}

static unsigned int peer_conns(const struct http_server *s,
			       const struct in6_addr *peer)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->nr; i++)
		n += !memcmp(&s->conns[i].peer, peer, sizeof(*peer));
	return n;
}

/* Which goes first: reading its request, answered, being answered. */
static int evict_rank(const struct http_conn *c)
{
	return c->state == CONN_READ ? 0 : c->state == CONN_DRAIN ? 1 : 2;
}

/*
 * The connection to close for a new one from PEER, the table full (the
 * rules atop this file), among those accepted before serial FIRST, this
 * pass's first; NULL if there is none.
 */
static struct http_conn *victim(struct http_server *s,
				const struct in6_addr *peer, uint64_t first)
{
	const struct in6_addr *crowd = NULL;
	unsigned int most = EXPORTER_PEER_CONNS, i, n;
	struct http_conn *v = NULL, *c;

	for (i = 0; i < s->nr; i++) {
		n = peer_conns(s, &s->conns[i].peer) +
		    !memcmp(&s->conns[i].peer, peer, sizeof(*peer));
		if (n > most) {
			most = n;
			crowd = &s->conns[i].peer;
		}
	}
	/* The crowd's first; anyone's when it has none to give. */
	for (int anyone = !crowd; anyone < 2 && !v; anyone++) {
		for (i = 0; i < s->nr; i++) {
			c = &s->conns[i];
			if (c->serial >= first || (!anyone &&
			    memcmp(&c->peer, crowd, sizeof(*crowd))))
				continue;
			if (!v || evict_rank(c) < evict_rank(v) ||
			    (evict_rank(c) == evict_rank(v) &&
			     c->serial < v->serial))
				v = c;
		}
	}
	return v;
}

/* Each connection was accepted at FIRST or after: none may give way. */
static bool all_new(const struct http_server *s, uint64_t first)
{
	for (unsigned int i = 0; i < s->nr; i++)
		if (s->conns[i].serial < first)
			return false;
	return true;
}

/*
 * Take the waiting connections while there is room or an older one to
 * drop; the others wait in the backlog for the next pass.
 */
static void accept_all(struct http_server *s)
{
	uint64_t first = s->counts.accepted;
	struct sockaddr_storage sa;
	struct in6_addr peer;
	socklen_t len;
	int fd;

	for (;;) {
		if (s->nr == EXPORTER_MAX_CONNS && all_new(s, first))
			return;
		len = sizeof(sa);
		fd = accept4(s->fd, (struct sockaddr *)&sa, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/*
			 * The connection stays queued, the socket readable:
			 * polling it again at once would spin.
			 */
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				s->accept_ms = now_ms() + EXPORTER_ACCEPT_PAUSE_MS;
			return;
		}
		peer_of(&sa, &peer);
		if (s->nr == EXPORTER_MAX_CONNS) {
			conn_close(s, victim(s, &peer, first));
			s->counts.evicted++;
		}
		s->conns[s->nr++] = (struct http_conn){
			.fd = fd,
			.state = CONN_READ,
			.serial = s->counts.accepted++,
			.deadline_ms = now_ms() + EXPORTER_CONN_MS,
			.peer = peer,
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
			s->counts.expired++;
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

	if (s->fd >= 0 && s->accept_ms > now &&
	    (!next || s->accept_ms < next))
		next = s->accept_ms;
	if (next && (timeout_ms < 0 || next - now < (uint64_t)timeout_ms))
		timeout_ms = next - now;
	if (timeout_ms >= 0) {
		ts = (struct timespec){ timeout_ms / 1000,
					(timeout_ms % 1000) * 1000000L };
		tsp = &ts;
	}
	/* Even when full: every connection is older than this pass. */
	if (s->fd >= 0 && s->accept_ms <= now)
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

		if (c->state == CONN_WRITE && ev & (POLLHUP | POLLERR))
			keep = false;	/* no one left to write to */
		else if (ev & (POLLIN | POLLHUP | POLLERR))
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
