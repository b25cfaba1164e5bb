// SPDX-License-Identifier: GPL-2.0
/*
 * GET_STATUS: the reply holds the module's state and the accounting
 * totals and the watch's state (client_watch.c parses it); its dump, one
 * accounting row per traced CPU (ABI 3: a row per message, so no reply
 * grows with the host).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "grow.h"

static int parse_acct(const struct nlattr *nest, struct hvc_acct_row *row)
{
	const struct nlattr *tb[HVTRACE_ACCT_MAX + 1];
	int ret;

	memset(row, 0, sizeof(*row));
	ret = hvnl_parse_nested(nest, tb, HVTRACE_ACCT_MAX, hvc_policy_acct);
	if (ret)
		return ret;
	row->cpu = hvnl_u32(tb[HVTRACE_ACCT_CPU]);
	for (unsigned int a = HVTRACE_ACCT_SEEN; a <= HVTRACE_ACCT_MAX; a++)
		row->n[a] = hvnl_u64(tb[a]);
	return 0;
}

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	struct hvc_status *s = data;
	int ret;

	ret = hvnl_parse(nlh, tb, HVTRACE_A_MAX, hvc_policy_attr);
	if (ret)
		return ret;
	snprintf(s->version, sizeof(s->version), "%s",
		 hvnl_str(tb[HVTRACE_A_VERSION]));
	snprintf(s->vendor, sizeof(s->vendor), "%s",
		 hvnl_str(tb[HVTRACE_A_VENDOR]));
	snprintf(s->clock, sizeof(s->clock), "%s",
		 hvnl_str(tb[HVTRACE_A_CLOCK]));
	s->clock_skew_ns = hvnl_u32(tb[HVTRACE_A_CLOCK_SKEW_NS]);
	s->irq_probes_known = tb[HVTRACE_A_IRQ_PROBES];
	s->irq_probes = hvnl_u8(tb[HVTRACE_A_IRQ_PROBES]);
	s->abi = hvnl_u32(tb[HVTRACE_A_ABI]);
	s->nr_cpus = hvnl_u32(tb[HVTRACE_A_NR_CPUS]);
	s->cpus_traced = hvnl_u32(tb[HVTRACE_A_CPUS_TRACED]);
	s->recording = hvnl_u8(tb[HVTRACE_A_RECORDING]);
	s->reader = hvnl_u8(tb[HVTRACE_A_READER]);
	s->exits_seen = hvnl_u64(tb[HVTRACE_A_EXITS_SEEN]);
	s->entries_seen = hvnl_u64(tb[HVTRACE_A_ENTRIES_SEEN]);
	s->exits_untraced = hvnl_u64(tb[HVTRACE_A_EXITS_UNTRACED]);
	s->age_ns = hvnl_u64(tb[HVTRACE_A_STATS_AGE_NS]);
	s->vcpus_live = hvnl_u32(tb[HVTRACE_A_VCPUS_LIVE]);
	s->vcpus_max = hvnl_u32(tb[HVTRACE_A_VCPUS_MAX]);
	s->vms_live = hvnl_u32(tb[HVTRACE_A_VMS_LIVE]);
	s->vcpus_created = hvnl_u64(tb[HVTRACE_A_VCPUS_CREATED]);
	s->vcpus_reclaimed = hvnl_u64(tb[HVTRACE_A_VCPUS_RECLAIMED]);
	s->vcpus_refused = hvnl_u64(tb[HVTRACE_A_VCPUS_REFUSED]);
	s->reclaim = hvnl_u8(tb[HVTRACE_A_RECLAIM]);
	s->mem_bytes = hvnl_u64(tb[HVTRACE_A_MEM_BYTES]);
	s->mem_cpu_bytes = hvnl_u64(tb[HVTRACE_A_MEM_CPU_BYTES]);
	s->mem_vcpu_bytes = hvnl_u64(tb[HVTRACE_A_MEM_VCPU_BYTES]);
	if (!tb[HVTRACE_A_ACCT])
		return hvc_err(EPROTO, "the module's status has no accounting");
	if (tb[HVTRACE_A_WATCH]) {
		ret = hvc_watch_status_parse(tb[HVTRACE_A_WATCH], &s->watch);
		if (ret)
			return ret;
	}
	return parse_acct(tb[HVTRACE_A_ACCT], &s->total);
}

/* A message of the dump: one CPU's ACCT nest. */
static int cpu_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	struct hvc_status *s = data;
	int ret;

	ret = hvnl_parse(nlh, tb, HVTRACE_A_MAX, hvc_policy_attr);
	if (ret || !tb[HVTRACE_A_ACCT])
		return ret;
	ret = grow(&s->cpus, s->nr_cpu_rows, sizeof(*s->cpus));
	if (ret)
		return ret;
	return parse_acct(tb[HVTRACE_A_ACCT], &s->cpus[s->nr_cpu_rows++]);
}

void hvc_status_free(struct hvc_status *s)
{
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

static int status_get(struct hvc *c, struct hvc_status *s, bool per_cpu,
		      uint16_t flag)
{
	int ret;

	hvc_status_free(s);
	ret = hvc_request_flag(c, HVTRACE_CMD_GET_STATUS, 0, flag, status_cb,
			       s);
	if (!ret && per_cpu)
		ret = hvc_request_flag(c, HVTRACE_CMD_GET_STATUS, NLM_F_DUMP,
				       flag, cpu_cb, s);
	if (ret)
		hvc_status_free(s);
	return ret;
}

int hvc_status_get(struct hvc *c, struct hvc_status *s, bool per_cpu)
{
	return status_get(c, s, per_cpu, 0);
}

int hvc_status_get_since_load(struct hvc *c, struct hvc_status *s)
{
	return status_get(c, s, false, HVTRACE_A_SINCE_LOAD);
}
