// SPDX-License-Identifier: GPL-2.0
/*
 * The GET_CONFIG dump into a struct config. The first message holds the
 * single settings and the bitmaps; the next ones REASON_THRESHOLD nests
 * and FILTER_REASONS lists, in batches: each is appended, so hundreds of
 * per-reason settings come through whatever a message holds.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "config_fetch.h"
#include "grow.h"
#include "hvctl.h"

static void parse_reason(const struct nlattr *nest, struct cfg_reason **arr,
			 unsigned int *n)
{
	const struct nlattr *tb[HVTRACE_RSN_MAX + 1];
	struct cfg_reason *r;

	hvnl_parse_nested(nest, tb, HVTRACE_RSN_MAX);
	*arr = grow(*arr, *n, sizeof(**arr));
	r = &(*arr)[(*n)++];
	r->isa = hvnl_u8(tb[HVTRACE_RSN_ISA]);
	r->code = hvnl_u32(tb[HVTRACE_RSN_CODE]);
	r->threshold_ns = hvnl_u64(tb[HVTRACE_RSN_THRESHOLD_NS]);
}

/* A copy: the payload is only 4-byte aligned. */
static void parse_bitmap(const struct nlattr *a, struct cfg_bitmap *b)
{
	unsigned int len = mnl_attr_get_payload_len(a);

	free(b->w);
	b->w = calloc(1, len / 8 * 8 + 8);
	if (!b->w) {
		hvctl_err("out of memory");
		exit(1);
	}
	memcpy(b->w, mnl_attr_get_payload(a), len / 8 * 8);
	b->nbits = len / 8 * 64;
}

/* The single settings and the bitmaps: the first part holds them all. */
static void parse_settings(struct config *c, const struct nlattr *const *t)
{
	c->threshold_ns = hvnl_u64(t[HVTRACE_CFG_THRESHOLD_NS]);
	c->preempt_threshold_ns = hvnl_u64(t[HVTRACE_CFG_PREEMPT_THRESHOLD_NS]);
	c->threshold_on = hvnl_u8(t[HVTRACE_CFG_THRESHOLD_ON]);
	c->halt_triggers = hvnl_u8(t[HVTRACE_CFG_HALT_TRIGGERS]);
	c->pid = hvnl_u32(t[HVTRACE_CFG_FILTER_PID]);
	c->rip_min = hvnl_u64(t[HVTRACE_CFG_FILTER_RIP_MIN]);
	c->rip_max = hvnl_u64(t[HVTRACE_CFG_FILTER_RIP_MAX]);
	c->buffer_kb = hvnl_u32(t[HVTRACE_CFG_BUFFER_KB]);
	c->mode = hvnl_u8(t[HVTRACE_CFG_MODE]);
	if (t[HVTRACE_CFG_FILTER_VCPUS])
		parse_bitmap(t[HVTRACE_CFG_FILTER_VCPUS], &c->vcpus);
	if (t[HVTRACE_CFG_FILTER_CPUS])
		parse_bitmap(t[HVTRACE_CFG_FILTER_CPUS], &c->cpus);
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const struct nlattr *t[HVTRACE_CFG_MAX + 1];
	const struct nlattr *a, *r;
	struct config *c = data;

	if (hvnl_parse(nlh, tb, HVTRACE_A_MAX) < 0)
		return MNL_CB_ERROR;
	if (!tb[HVTRACE_A_CONFIG])
		return MNL_CB_OK;
	hvnl_parse_nested(tb[HVTRACE_A_CONFIG], t, HVTRACE_CFG_MAX);
	/* The global threshold is always there, and only in that part. */
	if (t[HVTRACE_CFG_THRESHOLD_NS])
		parse_settings(c, t);
	/* The repeated ones, in order: every part may hold some. */
	mnl_attr_for_each_nested(a, tb[HVTRACE_A_CONFIG]) {
		switch (mnl_attr_get_type(a)) {
		case HVTRACE_CFG_REASON_THRESHOLD:
			parse_reason(a, &c->thresholds, &c->nr_thresholds);
			break;
		case HVTRACE_CFG_FILTER_REASONS:
			c->reason_filter = true;
			mnl_attr_for_each_nested(r, a)
				parse_reason(r, &c->reasons, &c->nr_reasons);
			break;
		}
	}
	return MNL_CB_OK;
}

void config_free(struct config *c)
{
	free(c->thresholds);
	free(c->reasons);
	free(c->vcpus.w);
	free(c->cpus.w);
	memset(c, 0, sizeof(*c));
}

int config_fetch(struct hvnl *nl, struct config *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	config_free(c);
	return hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_GET_CONFIG,
					  NLM_F_DUMP), config_cb, c);
}
