// SPDX-License-Identifier: GPL-2.0
/*
 * The client's session, the commands without attributes,
 * draining and the events group. The typed replies are client_status.c,
 * client_config.c and client_stats.c; changes are client_change.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/genetlink.h>

#include "client.h"
#include "client_priv.h"

int hvc_open(struct hvc **out)
{
	struct hvc *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c)
		return hvc_err(ENOMEM, "out of memory");
	ret = hvnl_open(&c->nl);
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void hvc_close(struct hvc *c)
{
	if (!c)
		return;
	hvnl_close(c->nl);
	free(c);
}

int hvc_request_flag(struct hvc *c, uint8_t cmd, uint16_t flags,
		     uint16_t flag, hvnl_cb cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req = hvnl_request(c->nl, buf, cmd, flags);

	if (flag)
		mnl_attr_put(req, flag, 0, NULL);
	return hvnl_talk(c->nl, req, cb, data, NULL);
}

int hvc_request(struct hvc *c, uint8_t cmd, uint16_t flags, hvnl_cb cb,
		void *data)
{
	return hvc_request_flag(c, cmd, flags, 0, cb, data);
}

/* Room to count each type of the nests whose refusals are mapped. */
#define ATTR_TYPES	64
_Static_assert(HVTRACE_CFG_MAX < ATTR_TYPES && HVTRACE_WATCH_MAX < ATTR_TYPES,
	       "a nest's types are counted in seen[]");

uint16_t hvc_attr_at(const struct nlmsghdr *req, uint16_t nest_type,
		     uint32_t off, unsigned int *nth)
{
	unsigned int seen[ATTR_TYPES] = { 0 };
	const char *base = (const char *)req;
	const struct nlattr *a, *nest = NULL;

	*nth = 0;
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == nest_type)
			nest = a;
	if (!nest)
		return 0;
	mnl_attr_for_each_nested(a, nest) {
		uint32_t start = (const char *)a - base;
		uint16_t type = mnl_attr_get_type(a);

		if (off >= start && off < start + a->nla_len) {
			*nth = type < ATTR_TYPES ? seen[type] : 0;
			return type;
		}
		if (type < ATTR_TYPES)
			seen[type]++;
	}
	return 0;
}

int hvc_start(struct hvc *c)
{
	return hvc_request(c, HVTRACE_CMD_START, 0, NULL, NULL);
}

int hvc_stop(struct hvc *c)
{
	return hvc_request(c, HVTRACE_CMD_STOP, 0, NULL, NULL);
}

int hvc_clear(struct hvc *c)
{
	return hvc_request(c, HVTRACE_CMD_CLEAR, 0, NULL, NULL);
}

struct drain_ctx {
	const struct hvc_drain_ops *ops;
	int err;		/* the first of ops->event */
};

/* A batch of one CPU's ring: its loss counters, then its events. */
static int drain_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const struct hvtrace_event *ev;
	struct drain_ctx *d = data;
	size_t n;
	int ret;

	ret = hvnl_parse(nlh, tb, HVTRACE_A_MAX, hvc_policy_attr);
	if (ret)
		return ret;
	if (tb[HVTRACE_A_EVENTS_CPU] && d->ops->cpu)
		d->ops->cpu(mnl_attr_get_u32(tb[HVTRACE_A_EVENTS_CPU]),
			    hvnl_u64(tb[HVTRACE_A_EVENTS_LOST]),
			    hvnl_u64(tb[HVTRACE_A_EVENTS_OVERWRITTEN]),
			    d->ops->data);
	if (!tb[HVTRACE_A_EVENTS] || d->err)
		return 0;
	ev = mnl_attr_get_payload(tb[HVTRACE_A_EVENTS]);
	n = mnl_attr_get_payload_len(tb[HVTRACE_A_EVENTS]) / sizeof(*ev);
	/* After an error the dump goes on: its counters still count. */
	for (size_t i = 0; i < n && !d->err; i++)
		d->err = d->ops->event(&ev[i], d->ops->data);
	return 0;
}

int hvc_drain(struct hvc *c, const struct hvc_drain_ops *ops)
{
	struct drain_ctx d = { .ops = ops };
	int ret;

	ret = hvc_request(c, HVTRACE_CMD_READ_EVENTS, NLM_F_DUMP, drain_cb, &d);
	return ret ? ret : d.err;
}

int hvc_subscribe(struct hvc *c)
{
	return hvnl_subscribe_events(c->nl);
}

int hvc_fd(const struct hvc *c)
{
	return hvnl_fd(c->nl);
}

void hvc_discard_pending(struct hvc *c)
{
	hvnl_discard_pending(c->nl);
}
