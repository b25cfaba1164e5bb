// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing: family resolution, requests with extended ACK,
 * and error messages a person can act on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/hvtrace.h>

#include "client.h"
#include "nl.h"

/* Dumps come in messages of up to 32 KiB; room for a few at once. */
#define HVNL_RECV_SIZE (128 * 1024)

struct hvnl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t mcast_events;
	uint32_t portid;
	uint32_t seq;
};

/* The "events" multicast group among the family's groups. */
static void parse_mcast_groups(const struct nlattr *groups, struct hvnl *nl)
{
	const struct nlattr *grp, *a;

	mnl_attr_for_each_nested(grp, groups) {
		const char *name = NULL;
		uint32_t id = 0;

		mnl_attr_for_each_nested(a, grp) {
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				name = mnl_attr_get_str(a);
			else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
				 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(a);
		}
		if (name && !strcmp(name, HVTRACE_MCGRP_EVENTS))
			nl->mcast_events = id;
	}
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct hvnl *nl = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
		nl->family = mnl_attr_get_u16(attr);
	if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS &&
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) >= 0)
		parse_mcast_groups(attr, nl);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
	return 0;
}

/*
 * What a refused request lacked, when the kernel did not say: observing
 * needs CAP_PERFMON or CAP_SYS_ADMIN, changing and draining CAP_SYS_ADMIN.
 */
static const char *eperm_hint(uint8_t cmd)
{
	switch (cmd) {
	case HVTRACE_CMD_GET_STATUS:
	case HVTRACE_CMD_GET_CONFIG:
	case HVTRACE_CMD_GET_STATS:
		return "observing needs CAP_PERFMON or CAP_SYS_ADMIN";
	default:
		return "changing or draining needs CAP_SYS_ADMIN: run hvctl as root";
	}
}

/*
 * The kernel's extended ACK after the error code at the start of NLH's
 * payload: its message and the attribute it names. TLV_OFF: where the
 * TLVs start in the payload.
 */
static void parse_ack(const struct nlmsghdr *nlh, int err,
		      unsigned int tlv_off, struct hvnl_ack *ack)
{
	const struct nlattr *attr;

	memset(ack, 0, sizeof(*ack));
	ack->err = err;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(attr, nlh, tlv_off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(ack->msg, sizeof(ack->msg), "%s",
				 mnl_attr_get_str(attr));
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_OFFS &&
		    mnl_attr_validate(attr, MNL_TYPE_U32) >= 0) {
			ack->off = mnl_attr_get_u32(attr);
			ack->has_off = true;
		}
	}
}

/*
 * The kernel's message, iproute2 style, and WHAT (the option it names)
 * when known. A refusal for want of privilege also says so in errno's
 * words.
 */
int hvnl_report_ack(const struct hvnl_ack *ack, uint8_t cmd,
		    const char *what)
{
	const char *msg = *ack->msg ? ack->msg : strerror(ack->err);

	/* 6.1 sends a dump start's refusal without its message: the module's. */
	if (!*ack->msg && ack->err == EBUSY && cmd == HVTRACE_CMD_READ_EVENTS)
		msg = "the buffers are owned by another reader (an hvctl record?) or being cleared or resized";

	if (ack->err == EPERM)
		return hvc_err(ack->err, "%s (%s)",
			       *ack->msg ? ack->msg : eperm_hint(cmd),
			       strerror(ack->err));
	if (what)
		return hvc_err(ack->err, "%s (%s)", msg, what);
	return hvc_err(ack->err, "%s", msg);
}

static uint8_t genl_cmd(const struct nlmsghdr *req)
{
	return ((const struct genlmsghdr *)mnl_nlmsg_get_payload(req))->cmd;
}

/* One request on its way: what its replies came to so far. */
struct talk {
	const struct nlmsghdr *req;
	hvnl_cb cb;
	void *data;
	struct hvnl_ack *ack;	/* the caller's: it reports refusals */
	uint32_t portid;
	int err;		/* the first failure (reported, or in *ack) */
	bool done;		/* its ACK or NLMSG_DONE came */
};

/* The kernel refused the request, or a dump failed part way: ERR > 0. */
static void refused(struct talk *t, const struct nlmsghdr *nlh, int err,
		    unsigned int tlv_off)
{
	struct hvnl_ack mine;

	if (t->err)
		return;
	parse_ack(nlh, err, tlv_off, t->ack ? t->ack : &mine);
	t->err = t->ack ? -err : hvnl_report_ack(&mine, genl_cmd(t->req), NULL);
}

/* NLMSG_ERROR: an ACK (error 0) or a refusal; either ends the request. */
static void on_error(struct talk *t, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*e);

	t->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		if (!t->err)
			t->err = hvc_err(EPROTO, "netlink: a truncated error "
					 "message in the module's reply");
		return;
	}
	if (!e->error)
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	refused(t, nlh, -e->error, off);
}

/* NLMSG_DONE ends a dump; an error code in it: the dump failed. */
static void on_done(struct talk *t, const struct nlmsghdr *nlh)
{
	int err = 0;

	t->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err < 0)
		refused(t, nlh, -err, sizeof(err));
}

static void on_msg(struct talk *t, const struct nlmsghdr *nlh)
{
	/* A reply to a request given up on (never ours to read). */
	if (nlh->nlmsg_seq != t->req->nlmsg_seq || nlh->nlmsg_pid != t->portid)
		return;
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
	case NLMSG_OVERRUN:
		return;
	case NLMSG_ERROR:
		on_error(t, nlh);
		return;
	case NLMSG_DONE:
		on_done(t, nlh);
		return;
	}
	/* After a failure the rest is read to its end, not looked at. */
	if (t->err)
		return;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
		t->err = hvc_err(EAGAIN, "the module's reply changed while it "
				 "was being sent; try again");
		return;
	}
	if (t->cb)
		t->err = t->cb(nlh, t->data);
}

/*
 * Every message up to the request's end goes through on_msg(); libmnl's
 * mnl_cb_run() is not used because it stops at the first failure, with
 * only errno to say which, and leaves the rest of a dump to the next
 * request.
 */
static int talk(struct hvnl *nl, struct nlmsghdr *req, hvnl_cb cb,
		void *data, struct hvnl_ack *ack)
{
	static char buf[HVNL_RECV_SIZE] __attribute__((aligned(8)));
	struct talk t = {
		.req = req, .cb = cb, .data = data, .ack = ack,
		.portid = nl->portid,
	};

	if (ack)
		memset(ack, 0, sizeof(*ack));
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return hvc_err(errno, "netlink send: %s", strerror(errno));
	while (!t.done) {
		const struct nlmsghdr *nlh = (void *)buf;
		ssize_t n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		int len = n;

		if (n < 0) {
			/* What was left of the reply is lost with it. */
			if (!t.err)
				t.err = hvc_err(errno, "netlink receive: %s",
						strerror(errno));
			break;
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
			on_msg(&t, nlh);
	}
	return t.err;
}

int hvnl_open(struct hvnl **out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hvnl_ack ack;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct hvnl *nl;
	int one = 1;
	int ret;

	*out = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return hvc_err(ENOMEM, "out of memory");
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = hvc_err(errno, "netlink socket: %s", strerror(errno));
		goto fail;
	}
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, HVTRACE_GENL_NAME);

	ret = talk(nl, nlh, family_cb, nl, &ack);
	if (ack.err == ENOENT || (!ret && !nl->family)) {
		ret = hvc_err(ENOENT, "the hvtrace module is not loaded "
			      "(modprobe hvtrace)");
		goto fail;
	}
	if (ack.err) {
		ret = hvc_err(ack.err, "resolving the hvtrace family: %s",
			      *ack.msg ? ack.msg : strerror(ack.err));
		goto fail;
	}
	if (ret)
		goto fail;
	*out = nl;
	return 0;

fail:
	hvnl_close(nl);
	return ret;
}

void hvnl_close(struct hvnl *nl)
{
	if (!nl)
		return;
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl);
}

struct nlmsghdr *hvnl_request(struct hvnl *nl, void *buf, uint8_t cmd,
			      uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = HVTRACE_GENL_VERSION;
	return nlh;
}

int hvnl_talk(struct hvnl *nl, struct nlmsghdr *req, hvnl_cb cb, void *data,
	      struct hvnl_ack *ack)
{
	return talk(nl, req, cb, data, ack);
}

struct parse_ctx {
	const struct nlattr **tb;
	unsigned int max;
	const struct hvnl_policy *policy;
	int err;
};

static int parse_cb(const struct nlattr *attr, void *data)
{
	struct parse_ctx *ctx = data;
	unsigned int type = mnl_attr_get_type(attr);
	const struct hvnl_policy *p = &ctx->policy[type];
	unsigned int len = mnl_attr_get_payload_len(attr);

	/* Attributes newer than this hvctl are ignored, not fatal. */
	if (type > ctx->max || !p->name)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, p->type) < 0 ||
	    (p->multiple && len % p->multiple)) {
		ctx->err = hvc_err(EPROTO, "the module's reply is malformed: "
				   "%s has %u bytes", p->name, len);
		return MNL_CB_ERROR;
	}
	ctx->tb[type] = attr;
	return MNL_CB_OK;
}

int hvnl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	       unsigned int max, const struct hvnl_policy *policy)
{
	struct parse_ctx ctx = { .tb = tb, .max = max, .policy = policy };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &ctx);
	return ctx.err;
}

int hvnl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned int max, const struct hvnl_policy *policy)
{
	struct parse_ctx ctx = { .tb = tb, .max = max, .policy = policy };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse_nested(nest, parse_cb, &ctx);
	return ctx.err;
}

uint64_t hvnl_u64(const struct nlattr *a)
{
	return a ? mnl_attr_get_u64(a) : 0;
}

uint32_t hvnl_u32(const struct nlattr *a)
{
	return a ? mnl_attr_get_u32(a) : 0;
}

uint8_t hvnl_u8(const struct nlattr *a)
{
	return a ? mnl_attr_get_u8(a) : 0;
}

const char *hvnl_str(const struct nlattr *a)
{
	return a ? mnl_attr_get_str(a) : "";
}

int hvnl_subscribe_events(struct hvnl *nl)
{
	if (!nl->mcast_events)
		return hvc_err(ENOENT, "the module offers no events group");
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
				  &nl->mcast_events, sizeof(nl->mcast_events)))
		return hvc_err(errno, "joining the events group: %s%s",
			       strerror(errno), errno == EPERM ?
			       " (it needs CAP_SYS_ADMIN: run hvctl as root)" :
			       "");
	return 0;
}

int hvnl_fd(const struct hvnl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

void hvnl_discard_pending(struct hvnl *nl)
{
	char buf[8192];

	while (recv(mnl_socket_get_fd(nl->sock), buf, sizeof(buf),
		    MSG_DONTWAIT) > 0)
		;
}

uint32_t hvnl_pending(struct hvnl *nl)
{
	char buf[8192] __attribute__((aligned(8)));
	uint32_t seen = 0;
	ssize_t n;

	for (;;) {
		const struct nlmsghdr *nlh = (void *)buf;
		int len;

		n = recv(mnl_socket_get_fd(nl->sock), buf, sizeof(buf),
			 MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			seen = UINT32_MAX;
			continue;
		}
		if (n <= 0)
			return seen;
		len = n;
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct genlmsghdr *g;

			if (nlh->nlmsg_type != nl->family ||
			    mnl_nlmsg_get_payload_len(nlh) < sizeof(*g))
				continue;
			g = mnl_nlmsg_get_payload(nlh);
			if (g->cmd < 32)
				seen |= 1U << g->cmd;
		}
	}
}
