// SPDX-License-Identifier: GPL-2.0
/*
 * GET_STATUS: the reply holds the module's state and the accounting
 * totals; its dump, one accounting row per traced CPU (ABI 3: a row per
 * message, so no reply grows with the host).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "grow.h"
#include "hvctl.h"
#include "status_fetch.h"

static void parse_acct(const struct nlattr *nest, struct acct_row *row)
{
	const struct nlattr *tb[HVTRACE_ACCT_MAX + 1];

	memset(row, 0, sizeof(*row));
	hvnl_parse_nested(nest, tb, HVTRACE_ACCT_MAX);
	row->cpu = hvnl_u32(tb[HVTRACE_ACCT_CPU]);
	for (unsigned int a = HVTRACE_ACCT_SEEN; a <= HVTRACE_ACCT_MAX; a++)
		row->n[a] = hvnl_u64(tb[a]);
}

static int status_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	struct status *s = data;

	if (hvnl_parse(nlh, tb, HVTRACE_A_MAX) < 0)
		return MNL_CB_ERROR;
	snprintf(s->version, sizeof(s->version), "%s",
		 hvnl_str(tb[HVTRACE_A_VERSION]));
	snprintf(s->vendor, sizeof(s->vendor), "%s",
		 hvnl_str(tb[HVTRACE_A_VENDOR]));
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
	if (!tb[HVTRACE_A_ACCT]) {
		hvctl_err("the module's status has no accounting");
		return MNL_CB_ERROR;
	}
	parse_acct(tb[HVTRACE_A_ACCT], &s->total);
	return MNL_CB_OK;
}

/* A message of the dump: one CPU's ACCT nest. */
static int cpu_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	struct status *s = data;

	if (hvnl_parse(nlh, tb, HVTRACE_A_MAX) < 0)
		return MNL_CB_ERROR;
	if (!tb[HVTRACE_A_ACCT])
		return MNL_CB_OK;
	s->cpus = grow(s->cpus, s->nr_cpu_rows, sizeof(*s->cpus));
	parse_acct(tb[HVTRACE_A_ACCT], &s->cpus[s->nr_cpu_rows++]);
	return MNL_CB_OK;
}

void status_free(struct status *s)
{
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

int status_fetch(struct hvnl *nl, struct status *s, bool per_cpu)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	status_free(s);
	if (hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_GET_STATUS, 0),
		      status_cb, s))
		return -1;
	if (!per_cpu)
		return 0;
	return hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_GET_STATUS,
					  NLM_F_DUMP), cpu_cb, s);
}
