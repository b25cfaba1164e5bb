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

#include "hvctl.h"
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
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
				name = mnl_attr_get_str(a);
			else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
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
	if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS)
		parse_mcast_groups(attr, nl);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			      data);
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
 * Print the kernel's extended ACK message, iproute2 style. A refusal for
 * want of privilege also says so in errno's words.
 */
static void print_ack_error(const struct nlmsghdr *nlh, int err, uint8_t cmd)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	unsigned int off = sizeof(*e);
	const char *msg = NULL;

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		mnl_attr_for_each(attr, nlh, off) {
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
				msg = mnl_attr_get_str(attr);
		}
	}
	if (err == EPERM)
		hvctl_err("%s (%s)", msg && *msg ? msg : eperm_hint(cmd),
			  strerror(err));
	else if (msg && *msg)
		hvctl_err("%s", msg);
	else
		hvctl_err("%s", strerror(err));
}

static uint8_t genl_cmd(const struct nlmsghdr *req)
{
	return ((const struct genlmsghdr *)mnl_nlmsg_get_payload(req))->cmd;
}

static int talk(struct hvnl *nl, struct nlmsghdr *req, mnl_cb_t cb,
		void *data)
{
	static char buf[HVNL_RECV_SIZE];
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return hvctl_err("netlink send: %s", strerror(errno)), -1;

	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return hvctl_err("netlink receive: %s",
					 strerror(errno)), -1;
		ret = mnl_cb_run(buf, n, req->nlmsg_seq, nl->portid, cb, data);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret < 0) {
			const struct nlmsghdr *nlh = (void *)buf;
			int err = errno;

			/* Find the error message to show its ACK text. */
			while (mnl_nlmsg_ok(nlh, n)) {
				if (nlh->nlmsg_type == NLMSG_ERROR) {
					print_ack_error(nlh, err, genl_cmd(req));
					return -1;
				}
				nlh = mnl_nlmsg_next(nlh, (int *)&n);
			}
			if (err != EINTR)
				hvctl_err("%s", strerror(err));
			return -1;
		}
	}
}

struct hvnl *hvnl_open(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct hvnl *nl;
	int one = 1;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return NULL;
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		hvctl_err("netlink socket: %s", strerror(errno));
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

	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
		hvctl_err("netlink send: %s", strerror(errno));
		goto fail;
	}
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		int ret;

		if (n < 0) {
			hvctl_err("netlink receive: %s", strerror(errno));
			goto fail;
		}
		ret = mnl_cb_run(buf, n, nl->seq, nl->portid, family_cb, nl);
		if (ret < 0) {
			if (errno == ENOENT)
				hvctl_err("the hvtrace module is not loaded "
					  "(modprobe hvtrace)");
			else
				hvctl_err("resolving the hvtrace family: %s",
					  strerror(errno));
			goto fail;
		}
		if (ret == MNL_CB_STOP)
			break;
	}
	if (!nl->family) {
		hvctl_err("the hvtrace module is not loaded (modprobe hvtrace)");
		goto fail;
	}
	return nl;

fail:
	hvnl_close(nl);
	return NULL;
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

int hvnl_talk(struct hvnl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	return talk(nl, req, cb, data);
}

struct parse_ctx {
	const struct nlattr **tb;
	unsigned int max;
};

static int parse_cb(const struct nlattr *attr, void *data)
{
	struct parse_ctx *ctx = data;
	unsigned int type = mnl_attr_get_type(attr);

	/* Attributes newer than this hvctl are ignored, not fatal. */
	if (type <= ctx->max)
		ctx->tb[type] = attr;
	return MNL_CB_OK;
}

int hvnl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	       unsigned int max)
{
	struct parse_ctx ctx = { .tb = tb, .max = max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &ctx);
}

static int nested_cb(const struct nlattr *attr, void *data)
{
	return parse_cb(attr, data);
}

int hvnl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned int max)
{
	struct parse_ctx ctx = { .tb = tb, .max = max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	return mnl_attr_parse_nested(nest, nested_cb, &ctx);
}

int hvnl_simple(uint8_t cmd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hvnl *nl = hvnl_open();
	int ret;

	if (!nl)
		return -1;
	ret = hvnl_talk(nl, hvnl_request(nl, buf, cmd, 0), NULL, NULL);
	hvnl_close(nl);
	return ret;
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
		return hvctl_err("the module offers no events group"), -1;
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
				  &nl->mcast_events, sizeof(nl->mcast_events)))
		return hvctl_err("joining the events group: %s%s",
				 strerror(errno), errno == EPERM ?
				 " (it needs CAP_SYS_ADMIN: run hvctl as root)" :
				 ""), -1;
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
