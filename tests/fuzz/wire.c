// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz's side of the wire: sockets, sending, and reading every answer.
 *
 * After each send the fuzzer sends a sentinel, an NLMSG_NOOP with
 * NLM_F_ACK: netlink acks it at once, after whatever the messages before
 * it produced (requests are handled in the sender's context, in order).
 * So the answers to a send are complete when the sentinel's ack came and
 * every dump that started has ended; nothing waits for a message that
 * will never come, and every wait has a timeout.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nlfuzz.h"

#define RECV_SIZE (256 * 1024)

static uint8_t rbuf[RECV_SIZE];

int nl_open(bool ext_ack, bool cap_ack, int rcvbuf)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (ext_ack)
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (cap_ack)
		setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return fd;
}

int nl_send(int fd, const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t n = sendto(fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa));

	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/* One datagram, within TIMEOUT_MS: its length, or a negative errno. */
static ssize_t nl_recv(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct iovec iov = { rbuf, sizeof(rbuf) };
	struct sockaddr_nl sa;
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n;
	int r;

	/* Answers are mostly queued already: wait only when none is. */
	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN) {
		do {
			r = poll(&p, 1, timeout_ms);
		} while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
	}
	if (n < 0)
		return -errno;
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	return n;
}

int nl_sentinel(int fd, uint32_t seq)
{
	struct nlmsghdr h = {
		.nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = NLMSG_NOOP,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = seq,
	};

	return nl_send(fd, &h, sizeof(h));
}

/* One datagram: how many of its messages are the family's (data). */
int nl_read_one(int fd, int timeout_ms, uint16_t family,
		unsigned int *data_msgs)
{
	ssize_t n = nl_recv(fd, timeout_ms);
	size_t off = 0;

	*data_msgs = 0;
	if (n < 0)
		return n;
	while (off + NLMSG_HDRLEN <= (size_t)n) {
		const struct nlmsghdr *h = (const void *)(rbuf + off);

		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > n - off)
			return -EPROTO;
		if (h->nlmsg_type == family)
			++*data_msgs;
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	return 0;
}

/* An attribute stream the kernel wrote: must parse exactly. */
static bool sane_attrs(const uint8_t *p, int len, int depth)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return false;
		if ((a->nla_type & NLA_F_NESTED) && depth < 8 &&
		    !sane_attrs(p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN,
				depth + 1))
			return false;
		if ((int)NLA_ALIGN(a->nla_len) >= len)
			return true;
		len -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return len == 0;
}

static struct unit *unit_of(struct collect *c, uint32_t seq)
{
	unsigned int i;

	for (i = 0; i < c->nunits; i++)
		if (c->units[i].kind != U_DROPPED && c->units[i].seq == seq &&
		    !c->units[i].finished)
			return &c->units[i];
	return NULL;
}

/* The extended ACK's message of an NLMSG_ERROR, if any. */
static void ext_msg(const struct nlmsghdr *h, char *out, size_t sz)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	const uint8_t *p;

	out[0] = 0;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	p = (const uint8_t *)h + off;
	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > h->nlmsg_len)
			return;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG) {
			snprintf(out, sz, "%.*s", (int)(a->nla_len - NLA_HDRLEN),
				 (const char *)p + NLA_HDRLEN);
			return;
		}
		off += NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
}

static bool open_dumps(const struct collect *c)
{
	unsigned int i;

	for (i = 0; i < c->nunits; i++)
		if (c->units[i].dump_started && !c->units[i].finished)
			return true;
	return false;
}

/*
 * Read the answers to the units of C until the sentinel's ack came and
 * every dump that started ended. 0, or a negative errno with C->fail set.
 */
int nl_collect(int fd, struct collect *c,
	       void (*on_reply)(void *ctx, const uint8_t *msg, size_t len,
				struct unit *u), void *ctx)
{
	bool sentinel = false;

	while (!sentinel || open_dumps(c)) {
		ssize_t n = nl_recv(fd, c->timeout_ms);
		size_t off = 0;

		if (n < 0) {
			c->fail = n == -ETIMEDOUT ? "no answer in time (a hang?)" :
				  n == -ENOBUFS ? "receive queue overrun" :
				  n == -EMSGSIZE ? "answer larger than 256 KiB" :
						   "receive failed";
			return n;
		}
		while (off + NLMSG_HDRLEN <= (size_t)n) {
			const struct nlmsghdr *h = (const void *)(rbuf + off);
			struct unit *u;

			if (h->nlmsg_len < NLMSG_HDRLEN ||
			    h->nlmsg_len > n - off) {
				c->bad_replies++;
				c->fail = "a malformed message from the kernel";
				return -EPROTO;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				int err = h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int) ?
					  e->error : -EPROTO;

				if (h->nlmsg_seq == c->sentinel) {
					sentinel = true;
					if (err) {
						c->fail = "the sentinel was refused";
						return -EPROTO;
					}
				} else if ((u = unit_of(c, h->nlmsg_seq))) {
					u->got_err = true;
					u->err = -err;
					u->finished = true;
					ext_msg(h, u->ext_msg, sizeof(u->ext_msg));
				} else {
					c->stray++;
				}
			} else if (h->nlmsg_type == NLMSG_DONE) {
				u = unit_of(c, h->nlmsg_seq);
				if (u) {
					int err = 0;

					if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
						memcpy(&err, NLMSG_DATA(h), sizeof(err));
					u->got_done = true;
					u->dump_started = true;
					u->err = err < 0 ? -err : 0;
					u->finished = true;
				} else {
					c->stray++;
				}
			} else if (h->nlmsg_type == c->family) {
				const struct genlmsghdr *g = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
				    !sane_attrs(rbuf + off + NLMSG_HDRLEN +
						GENL_HDRLEN, h->nlmsg_len -
						NLMSG_HDRLEN - GENL_HDRLEN, 0)) {
					c->bad_replies++;
					c->fail = "a reply whose attributes do not parse";
					return -EPROTO;
				}
				if (!h->nlmsg_seq && !h->nlmsg_pid &&
				    g->cmd == HVTRACE_CMD_WATERMARK) {
					c->mcast_msgs++;
				} else if ((u = unit_of(c, h->nlmsg_seq))) {
					if (h->nlmsg_flags & NLM_F_MULTI) {
						u->dump_started = true;
						u->dump_msgs++;
						c->dump_msgs++;
					} else {
						u->got_reply = true;
						u->replies++;
					}
					if (on_reply)
						on_reply(ctx, rbuf + off,
							 h->nlmsg_len, u);
				} else {
					c->stray++;
				}
			} else {
				c->stray++;
			}
			off += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
	return 0;
}

/*
 * A doit request without attributes and without NLM_F_ACK (one answer:
 * the reply or the error); the reply into REPLY. 0 or a negative errno.
 */
int nl_request(int fd, uint16_t family, uint8_t cmd, uint16_t flags,
	       uint32_t seq, uint8_t *reply, size_t replysz, size_t *replylen,
	       int timeout_ms)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = family,
		       .nlmsg_flags = NLM_F_REQUEST | flags,
		       .nlmsg_seq = seq },
		.g = { .cmd = cmd, .version = HVTRACE_GENL_VERSION },
	};

	*replylen = 0;
	if (nl_send(fd, &req, sizeof(req)) < 0)
		return -EIO;
	for (;;) {
		ssize_t n = nl_recv(fd, timeout_ms);
		size_t off = 0;

		if (n < 0)
			return n;
		while (off + NLMSG_HDRLEN <= (size_t)n) {
			const struct nlmsghdr *h = (const void *)(rbuf + off);

			if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > n - off)
				return -EPROTO;
			if (h->nlmsg_seq == seq) {
				if (h->nlmsg_type == NLMSG_ERROR)
					return ((const struct nlmsgerr *)
						NLMSG_DATA(h))->error;
				if (h->nlmsg_type == NLMSG_DONE)
					return 0;
				if (h->nlmsg_len > replysz)
					return -EMSGSIZE;
				memcpy(reply, h, h->nlmsg_len);
				*replylen = h->nlmsg_len;
				return 0;
			}
			off += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
}

int nl_resolve(int fd, uint16_t *family, uint32_t *group)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		struct nlattr a;
		char name[8];
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = GENL_ID_CTRL,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
		.g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 },
		.a = { .nla_len = NLA_HDRLEN + sizeof(HVTRACE_GENL_NAME),
		       .nla_type = CTRL_ATTR_FAMILY_NAME },
		.name = HVTRACE_GENL_NAME,
	};
	const uint8_t *p;
	ssize_t n;
	int len;

	*family = 0;
	*group = 0;
	if (nl_send(fd, &req, sizeof(req)) < 0)
		return -EIO;
	n = nl_recv(fd, 5000);
	if (n < (ssize_t)NLMSG_HDRLEN)
		return n < 0 ? n : -EPROTO;
	if (((struct nlmsghdr *)rbuf)->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(rbuf))->error;
	p = rbuf + NLMSG_HDRLEN + GENL_HDRLEN;
	len = ((struct nlmsghdr *)rbuf)->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			break;
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			memcpy(family, p + NLA_HDRLEN, 2);
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS) {
			const uint8_t *g = p + NLA_HDRLEN;
			int glen = a->nla_len - NLA_HDRLEN;

			while (glen >= NLA_HDRLEN) {
				const struct nlattr *ga = (const void *)g;
				const uint8_t *q = g + NLA_HDRLEN;
				int qlen = ga->nla_len - NLA_HDRLEN;
				uint32_t id = 0;
				bool events = false;

				if (ga->nla_len < NLA_HDRLEN || ga->nla_len > glen)
					break;
				while (qlen >= NLA_HDRLEN) {
					const struct nlattr *qa = (const void *)q;

					if (qa->nla_len < NLA_HDRLEN ||
					    qa->nla_len > qlen)
						break;
					if (qa->nla_type == CTRL_ATTR_MCAST_GRP_ID)
						memcpy(&id, q + NLA_HDRLEN, 4);
					if (qa->nla_type == CTRL_ATTR_MCAST_GRP_NAME &&
					    !strcmp((const char *)q + NLA_HDRLEN,
						    HVTRACE_MCGRP_EVENTS))
						events = true;
					qlen -= NLA_ALIGN(qa->nla_len);
					q += NLA_ALIGN(qa->nla_len);
				}
				if (events)
					*group = id;
				glen -= NLA_ALIGN(ga->nla_len);
				g += NLA_ALIGN(ga->nla_len);
			}
		}
		len -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	/* The ack that follows. */
	nl_recv(fd, 5000);
	return *family ? 0 : -ENOENT;
}

/* GET_CONFIG doit: the payload of its CONFIG nest into OUT. */
int fetch_config(int fd, uint16_t family, uint32_t *seq, uint8_t *out,
		 size_t outsz, size_t *outlen, int timeout_ms)
{
	static uint8_t reply[RECV_SIZE];
	const struct nlattr *a;
	size_t len;
	int err;

	err = nl_request(fd, family, HVTRACE_CMD_GET_CONFIG, 0, ++*seq, reply,
			 sizeof(reply), &len, timeout_ms);
	if (err)
		return err;
	if (len < NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN)
		return -EPROTO;
	a = (const void *)(reply + NLMSG_HDRLEN + GENL_HDRLEN);
	if ((a->nla_type & NLA_TYPE_MASK) != HVTRACE_A_CONFIG ||
	    (size_t)a->nla_len - NLA_HDRLEN > outsz ||
	    NLMSG_HDRLEN + GENL_HDRLEN + a->nla_len > len)
		return -EPROTO;
	*outlen = a->nla_len - NLA_HDRLEN;
	memcpy(out, (const uint8_t *)a + NLA_HDRLEN, *outlen);
	return 0;
}

int fetch_status(int fd, uint16_t family, uint32_t *seq,
		 struct status_snap *s, int timeout_ms)
{
	static uint8_t reply[RECV_SIZE];
	const uint8_t *p;
	size_t len;
	int err, rem;

	memset(s, 0, sizeof(*s));
	err = nl_request(fd, family, HVTRACE_CMD_GET_STATUS, 0, ++*seq, reply,
			 sizeof(reply), &len, timeout_ms);
	if (err)
		return err;
	if (len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EPROTO;
	p = reply + NLMSG_HDRLEN + GENL_HDRLEN;
	rem = len - NLMSG_HDRLEN - GENL_HDRLEN;
	while (rem >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		unsigned int l = a->nla_len - NLA_HDRLEN;
		uint64_t v = 0;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			return -EPROTO;
		memcpy(&v, p + NLA_HDRLEN, l < 8 ? l : 8);
		switch (a->nla_type & NLA_TYPE_MASK) {
		case HVTRACE_A_RECORDING: s->recording = v; break;
		case HVTRACE_A_READER: s->reader = v; break;
		case HVTRACE_A_STATS_AGE_NS: s->stats_age_ns = v; break;
		case HVTRACE_A_EXITS_SEEN: s->exits_seen = v; break;
		case HVTRACE_A_ENTRIES_SEEN: s->entries_seen = v; break;
		case HVTRACE_A_MEM_BYTES: s->mem_bytes = v; break;
		case HVTRACE_A_ACCT:
			s->acct_len = l < sizeof(s->acct) ? l : sizeof(s->acct);
			memcpy(s->acct, p + NLA_HDRLEN, s->acct_len);
			break;
		}
		rem -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return 0;
}

/* ---- reports ------------------------------------------------------- */

void hexdump(const uint8_t *p, size_t len, const char *indent)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (i % 16 == 0)
			printf("%s%04zx:", indent, i);
		printf(" %02x", p[i]);
		if (i % 16 == 15 || i == len - 1)
			printf("\n");
	}
}

enum space { SP_TOP, SP_CFG, SP_RSN, SP_LIST, SP_OTHER };

static const char *attr_name(enum space sp, unsigned int t)
{
	static const char *const top[] = {
		"UNSPEC", "PAD", "VERSION", "ABI", "NR_CPUS", "VENDOR",
		"RECORDING", "READER", "ACCT", "EXITS_SEEN", "ENTRIES_SEEN",
		"CONFIG", "REASON", "VCPU", "EVENTS_CPU", "EVENTS",
		"STATS_AGE_NS", "EVENTS_LOST", "EVENTS_OVERWRITTEN",
		"PREEMPTOR", "CPUS_TRACED", "EXITS_UNTRACED", "VCPUS_LIVE",
		"VCPUS_MAX", "VMS_LIVE", "VCPUS_CREATED", "VCPUS_RECLAIMED",
		"VCPUS_REFUSED", "RECLAIM", "MEM_BYTES", "MEM_CPU_BYTES",
		"MEM_VCPU_BYTES",
	};
	static const char *const cfg[] = {
		"CFG_UNSPEC", "CFG_PAD", "CFG_THRESHOLD_NS",
		"CFG_REASON_THRESHOLD", "CFG_REASON_THRESHOLDS_CLEAR",
		"CFG_FILTER_PID", "CFG_FILTER_VCPUS", "CFG_FILTER_REASONS",
		"CFG_FILTER_RIP_MIN", "CFG_FILTER_RIP_MAX", "CFG_FILTER_CPUS",
		"CFG_FILTERS_CLEAR", "CFG_BUFFER_KB", "CFG_MODE",
		"CFG_THRESHOLD_ON", "CFG_HALT_TRIGGERS",
		"CFG_PREEMPT_THRESHOLD_NS", "CFG_IRQ_THRESHOLD_NS",
	};
	static const char *const rsn[] = {
		"RSN_UNSPEC", "RSN_PAD", "RSN_ISA", "RSN_CODE",
		"RSN_THRESHOLD_NS", "RSN_COUNT", "RSN_TOTAL_NS", "RSN_MIN_NS",
		"RSN_MAX_NS", "RSN_HIST", "RSN_VMM_NS", "RSN_HALT_NS",
		"RSN_RUNNABLE_NS", "RSN_OTHER_NS", "RSN_NO_ENTRY",
	};

	switch (sp) {
	case SP_TOP:
		return t < sizeof(top) / sizeof(*top) ? top[t] : "?";
	case SP_CFG:
		return t < sizeof(cfg) / sizeof(*cfg) ? cfg[t] : "?";
	case SP_RSN:
		return t < sizeof(rsn) / sizeof(*rsn) ? rsn[t] : "?";
	case SP_LIST:
		return "entry";
	default:
		return "?";
	}
}

static enum space inner(enum space sp, unsigned int t)
{
	if (sp == SP_TOP && t == HVTRACE_A_CONFIG)
		return SP_CFG;
	if (sp == SP_TOP && t == HVTRACE_A_REASON)
		return SP_RSN;
	if (sp == SP_CFG && t == HVTRACE_CFG_REASON_THRESHOLD)
		return SP_RSN;
	if (sp == SP_CFG && t == HVTRACE_CFG_FILTER_REASONS)
		return SP_LIST;
	if (sp == SP_LIST)
		return SP_RSN;
	return SP_OTHER;
}

static void decode_attrs(const uint8_t *p, int len, enum space sp, int depth,
			 const char *indent)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		unsigned int t = a->nla_type & NLA_TYPE_MASK;
		int l = a->nla_len - NLA_HDRLEN;
		uint64_t v = 0;

		printf("%s%*s%s(%u) len %u%s%s", indent, 2 * depth, "",
		       attr_name(sp, t), t, a->nla_len,
		       a->nla_type & NLA_F_NESTED ? " NESTED" : "",
		       a->nla_type & NLA_F_NET_BYTEORDER ? " NET_BYTEORDER" : "");
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len) {
			printf("  <- length beyond the %d bytes left\n", len);
			return;
		}
		if ((a->nla_type & NLA_F_NESTED) && depth < 12) {
			printf("\n");
			decode_attrs(p + NLA_HDRLEN, l, inner(sp, t), depth + 1,
				     indent);
		} else if (l == 1 || l == 4 || l == 8) {
			memcpy(&v, p + NLA_HDRLEN, l);
			printf(" = %llu (0x%llx)\n", (unsigned long long)v,
			       (unsigned long long)v);
		} else {
			printf(" (%d bytes)\n", l);
		}
		if ((int)NLA_ALIGN(a->nla_len) >= len)
			return;
		len -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	if (len > 0)
		printf("%s%*s<%d trailing bytes>\n", indent, 2 * depth, "", len);
}

void decode(const uint8_t *p, size_t len, const char *indent)
{
	const struct nlmsghdr *h = (const void *)p;
	const struct genlmsghdr *g = (const void *)(p + NLMSG_HDRLEN);
	size_t l;

	if (len < NLMSG_HDRLEN) {
		printf("%s%zu bytes: shorter than a netlink header\n", indent, len);
		return;
	}
	printf("%snlmsghdr: len %u type 0x%x flags 0x%x seq %u pid %u (%zu bytes sent)\n",
	       indent, h->nlmsg_len, h->nlmsg_type, h->nlmsg_flags,
	       h->nlmsg_seq, h->nlmsg_pid, len);
	if (len < NLMSG_HDRLEN + GENL_HDRLEN)
		return;
	printf("%sgenlmsghdr: cmd %u (%s) version %u reserved %u\n", indent,
	       g->cmd, cmd_name(g->cmd), g->version, g->reserved);
	l = h->nlmsg_len < len ? h->nlmsg_len : len;
	if (l > NLMSG_HDRLEN + GENL_HDRLEN)
		decode_attrs(p + NLMSG_HDRLEN + GENL_HDRLEN,
			     l - NLMSG_HDRLEN - GENL_HDRLEN, SP_TOP, 0, indent);
}
