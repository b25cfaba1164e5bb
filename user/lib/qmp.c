// SPDX-License-Identifier: GPL-2.0
/* QEMU's memory map through its monitor socket (qmp.h). */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "qmp.h"

struct qmp {
	const char *path;
	int fd;
	char *buf;		/* what was read, not yet a whole line */
	size_t len, cap;
	uint64_t deadline;	/* CLOCK_MONOTONIC ns: the whole exchange */
	unsigned int timeout_ms;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Waits for EVENTS on the socket until the deadline: 0, or the error set. */
static int wait_for(struct qmp *q, short events)
{
	struct pollfd pfd = { .fd = q->fd, .events = events };

	for (;;) {
		uint64_t now = mono_ns();
		int n;

		if (now >= q->deadline)
			return hvc_err(ETIMEDOUT, "%s: no answer in %u ms",
				       q->path, q->timeout_ms);
		n = poll(&pfd, 1, (q->deadline - now + 999999) / 1000000);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return hvc_err(errno, "%s: %s", q->path,
				       strerror(errno));
	}
}

/* One reply line ("...\r\n"), NUL-terminated in place; NULL: error set. */
static char *read_line(struct qmp *q, int *err)
{
	char *nl;
	ssize_t n;

	while (!(nl = q->len ? memchr(q->buf, '\n', q->len) : NULL)) {
		if (q->len + 4096 > q->cap) {
			size_t cap = q->cap ? 2 * q->cap : 65536;
			char *b;

			if (cap > QMP_REPLY_MAX) {
				*err = hvc_err(EMSGSIZE, "%s: a reply of more "
					       "than %u bytes", q->path,
					       QMP_REPLY_MAX);
				return NULL;
			}
			b = realloc(q->buf, cap);
			if (!b) {
				*err = hvc_err(ENOMEM, "out of memory");
				return NULL;
			}
			q->buf = b;
			q->cap = cap;
		}
		*err = wait_for(q, POLLIN);
		if (*err)
			return NULL;
		n = read(q->fd, q->buf + q->len, q->cap - q->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			*err = hvc_err(n ? errno : ECONNRESET, "%s: %s", q->path,
				       n ? strerror(errno) :
				       "the VMM closed the socket");
			return NULL;
		}
		q->len += n;
	}
	*nl = '\0';
	return q->buf;
}

/* Drops the line read_line() returned. */
static void next_line(struct qmp *q)
{
	size_t used = strlen(q->buf) + 1;

	memmove(q->buf, q->buf + used, q->len - used);
	q->len -= used;
}

static int send_cmd(struct qmp *q, const char *cmd)
{
	size_t len = strlen(cmd), sent = 0;

	while (sent < len) {
		ssize_t n = send(q->fd, cmd + sent, len - sent, MSG_NOSIGNAL);
		int err;

		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return hvc_err(errno, "%s: %s", q->path,
				       strerror(errno));
		if (n > 0)
			sent += n;
		else if ((err = wait_for(q, POLLOUT)))
			return err;
	}
	return 0;
}

/*
 * The reply to the command just sent: the first line that is neither an
 * event nor the greeting. Its "return" member's start, or an error
 * naming QEMU's own message.
 */
static int reply(struct qmp *q, const char *what, char **ret)
{
	int err = 0;
	char *l;

	while ((l = read_line(q, &err))) {
		if (strstr(l, "\"event\"") && !strstr(l, "\"return\"")) {
			next_line(q);
			continue;
		}
		*ret = strstr(l, "\"return\":");
		if (*ret)
			return 0;
		return hvc_err(EPROTO, "%s: %s refused: %.200s", q->path, what,
			       l);
	}
	return err;
}

/* The JSON string at P (past "return":) unescaped, malloc'ed. */
static int json_string(struct qmp *q, const char *p, char **text)
{
	char *out, *o;

	p += strspn(p, " ");
	if (*p++ != '"')
		return hvc_err(EPROTO, "%s: info mtree: no text in the reply",
			       q->path);
	out = o = malloc(strlen(p) + 1);
	if (!out)
		return hvc_err(ENOMEM, "out of memory");
	for (; *p && *p != '"'; p++) {
		unsigned int u;

		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u':
			/* QEMU escapes control bytes so; others: '?'. */
			for (int i = 1; i <= 4; i++)
				if (!isxdigit((unsigned char)p[i]))
					goto bad;
			sscanf(p + 1, "%4x", &u);
			*o++ = u < 0x80 ? (char)u : '?';
			p += 4;
			break;
		case '\0':
			goto bad;
		default:	/* " \ / */
			*o++ = *p;
		}
	}
	if (*p != '"')
		goto bad;
	*o = '\0';
	*text = out;
	return 0;
bad:
	free(out);
	return hvc_err(EPROTO, "%s: info mtree: a string JSON does not end",
		       q->path);
}

int qmp_memory_tree(const char *path, unsigned int timeout_ms, uint32_t *pid,
		    char **text)
{
	struct qmp q = { .path = path, .fd = -1, .timeout_ms = timeout_ms,
			 .deadline = mono_ns() + timeout_ms * 1000000ULL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char *ret;
	int err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return hvc_err(ENAMETOOLONG, "%s: a socket path of more than "
			       "%zu bytes", path, sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, path);
	/*
	 * Never blocking: QEMU takes one monitor client at a time, and a
	 * unix socket's connect waits while its backlog is full.
	 */
	q.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (q.fd < 0)
		return hvc_err(errno, "socket: %s", strerror(errno));
	if (connect(q.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno == EAGAIN ?
		      hvc_err(EBUSY, "%s: the monitor is busy (another client "
			      "holds it)", path) :
		      hvc_err(errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (getsockopt(q.fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		err = hvc_err(errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	*pid = cred.pid;
	/* The greeting names the protocol: anything else is no monitor. */
	err = 0;
	ret = read_line(&q, &err);
	if (!ret)
		goto out;
	if (strncmp(ret, "{\"QMP\":", 7)) {
		err = hvc_err(EPROTO, "%s: not a QMP monitor: %.80s", path,
			      ret);
		goto out;
	}
	next_line(&q);
	err = send_cmd(&q, "{\"execute\":\"qmp_capabilities\"}\r\n");
	if (!err)
		err = reply(&q, "qmp_capabilities", &ret);
	if (err)
		goto out;
	next_line(&q);
	err = send_cmd(&q, "{\"execute\":\"human-monitor-command\","
		       "\"arguments\":{\"command-line\":\"info mtree -f\"}}\r\n");
	if (!err)
		err = reply(&q, "info mtree", &ret);
	if (!err)
		err = json_string(&q, ret + strlen("\"return\":"), text);
out:
	close(q.fd);
	free(q.buf);
	return err;
}
