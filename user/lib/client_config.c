// SPDX-License-Identifier: GPL-2.0
/*
 * The GET_CONFIG dump into a struct hvc_config. The first message holds the
 * single settings and the bitmaps; the next ones REASON_THRESHOLD nests
 * and FILTER_REASONS lists, in batches: each is appended, so hundreds of
 * per-reason settings come through whatever a message holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "grow.h"

static int parse_reason(const struct nlattr *nest, struct hvc_reason **arr,
			unsigned int *n)
{
	const struct nlattr *tb[HVTRACE_RSN_MAX + 1];
	struct hvc_reason *r;

	int ret = hvnl_parse_nested(nest, tb, HVTRACE_RSN_MAX, hvc_policy_rsn);

	if (ret)
		return ret;
	ret = grow(arr, *n, sizeof(**arr));
	if (ret)
		return ret;
	r = &(*arr)[(*n)++];
	r->isa = hvnl_u8(tb[HVTRACE_RSN_ISA]);
	r->code = hvnl_u32(tb[HVTRACE_RSN_CODE]);
	r->threshold_ns = hvnl_u64(tb[HVTRACE_RSN_THRESHOLD_NS]);
	return 0;
}

/* A copy: the payload is only 4-byte aligned. */
static int parse_bitmap(const struct nlattr *a, struct hvc_bitmap *b)
{
	unsigned int len = mnl_attr_get_payload_len(a);

	free(b->w);
	b->nbits = 0;
	b->w = calloc(1, len / 8 * 8 + 8);
	if (!b->w)
		return hvc_err(ENOMEM, "out of memory");
	memcpy(b->w, mnl_attr_get_payload(a), len / 8 * 8);
	b->nbits = len / 8 * 64;
	return 0;
}

/* The single settings and the bitmaps: the first part holds them all. */
static int parse_settings(struct hvc_config *c, const struct nlattr *const *t)
{
	c->threshold_ns = hvnl_u64(t[HVTRACE_CFG_THRESHOLD_NS]);
	c->preempt_threshold_ns = hvnl_u64(t[HVTRACE_CFG_PREEMPT_THRESHOLD_NS]);
	/* A module without late interrupt records records none. */
	c->irq_threshold_ns = t[HVTRACE_CFG_IRQ_THRESHOLD_NS] ?
			      hvnl_u64(t[HVTRACE_CFG_IRQ_THRESHOLD_NS]) :
			      HVTRACE_IRQ_THRESHOLD_OFF;
	c->threshold_on = hvnl_u8(t[HVTRACE_CFG_THRESHOLD_ON]);
	c->halt_triggers = hvnl_u8(t[HVTRACE_CFG_HALT_TRIGGERS]);
	c->pid = hvnl_u32(t[HVTRACE_CFG_FILTER_PID]);
	c->rip_min = hvnl_u64(t[HVTRACE_CFG_FILTER_RIP_MIN]);
	c->rip_max = hvnl_u64(t[HVTRACE_CFG_FILTER_RIP_MAX]);
	c->buffer_kb = hvnl_u32(t[HVTRACE_CFG_BUFFER_KB]);
	c->mode = hvnl_u8(t[HVTRACE_CFG_MODE]);
	if (t[HVTRACE_CFG_FILTER_VCPUS] &&
	    parse_bitmap(t[HVTRACE_CFG_FILTER_VCPUS], &c->vcpus))
		return -ENOMEM;
	if (t[HVTRACE_CFG_FILTER_CPUS] &&
	    parse_bitmap(t[HVTRACE_CFG_FILTER_CPUS], &c->cpus))
		return -ENOMEM;
	return 0;
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const struct nlattr *t[HVTRACE_CFG_MAX + 1];
	const struct nlattr *a, *r;
	struct hvc_config *c = data;
	int ret;

	ret = hvnl_parse(nlh, tb, HVTRACE_A_MAX, hvc_policy_attr);
	if (ret || !tb[HVTRACE_A_CONFIG])
		return ret;
	ret = hvnl_parse_nested(tb[HVTRACE_A_CONFIG], t, HVTRACE_CFG_MAX,
				hvc_policy_cfg);
	if (ret)
		return ret;
	/* The global threshold is always there, and only in that part. */
	if (t[HVTRACE_CFG_THRESHOLD_NS]) {
		ret = parse_settings(c, t);
		if (ret)
			return ret;
	}
	/* The repeated ones, in order: every part may hold some. */
	mnl_attr_for_each_nested(a, tb[HVTRACE_A_CONFIG]) {
		switch (mnl_attr_get_type(a)) {
		case HVTRACE_CFG_REASON_THRESHOLD:
			ret = parse_reason(a, &c->thresholds, &c->nr_thresholds);
			break;
		case HVTRACE_CFG_FILTER_REASONS:
			c->reason_filter = true;
			mnl_attr_for_each_nested(r, a) {
				ret = parse_reason(r, &c->reasons, &c->nr_reasons);
				if (ret)
					break;
			}
			break;
		}
		if (ret)
			return ret;
	}
	return 0;
}

void hvc_config_free(struct hvc_config *c)
{
	free(c->thresholds);
	free(c->reasons);
	free(c->vcpus.w);
	free(c->cpus.w);
	memset(c, 0, sizeof(*c));
}

int hvc_config_get(struct hvc *c, struct hvc_config *cfg)
{
	int ret;

	hvc_config_free(cfg);
	ret = hvc_request(c, HVTRACE_CMD_GET_CONFIG, NLM_F_DUMP, config_cb,
			  cfg);
	if (ret)
		hvc_config_free(cfg);
	return ret;
}
