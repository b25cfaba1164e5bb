// SPDX-License-Identifier: GPL-2.0
/*
 * The "hvtrace" generic netlink family: the only way in and out of the
 * module (the ABI is drawn in include/uapi/linux/hvtrace.h).
 *
 * Privilege: generic netlink's GENL_ADMIN_PERM tests CAP_NET_ADMIN, which
 * many network daemons hold; tracing other tenants' VMs is not theirs to
 * do. So every operation tests what the header documents itself, on the
 * task that sends the request, in the initial user namespace
 * (netlink_capable: a socket handed to a less privileged process does
 * not carry its opener's rights): observing needs CAP_PERFMON or
 * CAP_SYS_ADMIN, changing (and draining) CAP_SYS_ADMIN; the events group
 * tests the task that joins it, when it joins. The family is not
 * netnsok: other network namespaces do not see it.
 *
 * Operations run in parallel (parallel_ops), so long dumps never hold
 * the generic netlink mutex that every family shares; what changes state
 * takes hvt_ctl_mutex. Requests are validated whole before anything
 * changes. What grows with the host is a dump of messages within a page
 * (GET_CONFIG's doit reply alone is sized from what it holds).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <uapi/linux/hvtrace.h>

#include "buffers.h"
#include "clock.h"
#include "config.h"
#include "exit_info.h"
#include "genl.h"
#include "mem.h"
#include "probes.h"
#include "stats.h"
#include "vcpu_table.h"
#include "vcpu_time.h"

/* Serializes every change: configuration, buffers, start/stop, clear. */
static DEFINE_MUTEX(hvt_ctl_mutex);

bool hvt_may_observe(const struct sk_buff *skb,
		     struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_PERFMON) ||
	    netlink_capable(skb, CAP_SYS_ADMIN))
		return true;
	NL_SET_ERR_MSG_MOD(extack, "observing needs CAP_PERFMON or CAP_SYS_ADMIN");
	return false;
}

bool hvt_may_change(const struct sk_buff *skb,
		    struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return true;
	NL_SET_ERR_MSG_MOD(extack, "changing or draining needs CAP_SYS_ADMIN");
	return false;
}

static struct netlink_range_validation thr_range = {
	.max = HVTRACE_THRESHOLD_NS_MAX,
};

static struct netlink_range_validation buffer_kb_range = {
	.min = HVTRACE_BUFFER_KB_MIN,
	.max = HVTRACE_BUFFER_KB_MAX,
};

/*
 * The CPU filter's bitmap may be as long as x86's largest NR_CPUS (8192)
 * needs, whatever this kernel's: a CPU the kernel cannot have is refused
 * by hvt_nla_bitmap() with "no such CPU", not by the policy with a generic
 * message that depends on how the kernel was configured.
 */
#define HVT_CPU_BITMAP_MAX_BYTES \
	(sizeof(struct cpumask) > 8192 / 8 ? sizeof(struct cpumask) : 8192 / 8)

static const struct nla_policy rsn_policy[HVTRACE_RSN_MAX + 1] = {
	[HVTRACE_RSN_ISA] = NLA_POLICY_RANGE(NLA_U8, HVTRACE_ISA_VMX,
					     HVTRACE_ISA_SVM),
	[HVTRACE_RSN_CODE] = { .type = NLA_U32 },
	[HVTRACE_RSN_THRESHOLD_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &thr_range),
};

static const struct nla_policy cfg_policy[HVTRACE_CFG_MAX + 1] = {
	[HVTRACE_CFG_THRESHOLD_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &thr_range),
	[HVTRACE_CFG_REASON_THRESHOLD] = NLA_POLICY_NESTED(rsn_policy),
	[HVTRACE_CFG_REASON_THRESHOLDS_CLEAR] = { .type = NLA_FLAG },
	[HVTRACE_CFG_FILTER_PID] = { .type = NLA_U32 },
	[HVTRACE_CFG_FILTER_VCPUS] = { .type = NLA_BINARY,
				       .len = HVT_NR_VCPU_IDS / 8 },
	[HVTRACE_CFG_FILTER_REASONS] = { .type = NLA_NESTED },
	[HVTRACE_CFG_FILTER_RIP_MIN] = { .type = NLA_U64 },
	[HVTRACE_CFG_FILTER_RIP_MAX] = { .type = NLA_U64 },
	[HVTRACE_CFG_FILTER_CPUS] = { .type = NLA_BINARY,
				      .len = HVT_CPU_BITMAP_MAX_BYTES },
	[HVTRACE_CFG_FILTERS_CLEAR] = { .type = NLA_FLAG },
	[HVTRACE_CFG_BUFFER_KB] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&buffer_kb_range),
	[HVTRACE_CFG_MODE] = NLA_POLICY_MAX(NLA_U8, HVTRACE_MODE_MAX),
	[HVTRACE_CFG_THRESHOLD_ON] = NLA_POLICY_MAX(NLA_U8, HVTRACE_ON_MAX),
	[HVTRACE_CFG_HALT_TRIGGERS] = NLA_POLICY_MAX(NLA_U8, 1),
	[HVTRACE_CFG_PREEMPT_THRESHOLD_NS] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &thr_range),
	/* Or HVTRACE_IRQ_THRESHOLD_OFF: apply_config() checks. */
	[HVTRACE_CFG_IRQ_THRESHOLD_NS] = { .type = NLA_U64 },
};

static const struct nla_policy hvt_policy[HVTRACE_A_MAX + 1] = {
	[HVTRACE_A_CONFIG] = NLA_POLICY_NESTED(cfg_policy),
	[HVTRACE_A_WATCH] = NLA_POLICY_NESTED(hvt_watch_policy),
	[HVTRACE_A_SINCE_LOAD] = { .type = NLA_FLAG },
};

/*
 * Does the request NLH ask for the counters since load (not since the
 * last clear)? The core validated it against hvt_policy; a dump's
 * parsed attributes are kept where kernels differ, the message is not.
 */
static bool since_load(const struct nlmsghdr *nlh)
{
	return nlmsg_find_attr(nlh, GENL_HDRLEN, HVTRACE_A_SINCE_LOAD);
}

/* ---- status ---------------------------------------------------------- */

/* Attribute of each struct hvt_acct counter, in field order. */
static const u16 acct_attr[] = {
	HVTRACE_ACCT_SEEN, HVTRACE_ACCT_FILTERED, HVTRACE_ACCT_BELOW,
	HVTRACE_ACCT_RECORDED, HVTRACE_ACCT_LOST, HVTRACE_ACCT_UNPAIRED,
	HVTRACE_ACCT_PREEMPT_SEEN, HVTRACE_ACCT_PREEMPT_FILTERED,
	HVTRACE_ACCT_PREEMPT_BELOW, HVTRACE_ACCT_PREEMPT_RECORDED,
	HVTRACE_ACCT_PREEMPT_LOST, HVTRACE_ACCT_NO_ENTRY,
	HVTRACE_ACCT_MARK_FILTERED, HVTRACE_ACCT_MARK_RECORDED,
	HVTRACE_ACCT_MARK_LOST, HVTRACE_ACCT_MARK_SEEN,
	HVTRACE_ACCT_MARK_LIMITED, HVTRACE_ACCT_IRQ_SEEN,
	HVTRACE_ACCT_IRQ_FILTERED, HVTRACE_ACCT_IRQ_BELOW,
	HVTRACE_ACCT_IRQ_RECORDED, HVTRACE_ACCT_IRQ_LOST,
};

/*
 * The ACCT nest of CPU, or of every CPU when CPU is negative; since the
 * last clear, or SINCE_LOAD.
 */
static int put_acct(struct sk_buff *msg, int cpu, bool since_load)
{
	u64 overwritten = 0, drained = 0;
	struct nlattr *nest;
	struct hvt_acct a;
	const u64 *n = (const u64 *)&a;
	unsigned int i;
	int c;

	BUILD_BUG_ON(ARRAY_SIZE(acct_attr) != sizeof(a) / sizeof(u64));
	hvt_acct_sum(&a, cpu, since_load);
	/* The rings hold still: a resize frees them after a grace period. */
	rcu_read_lock_sched();
	for_each_cpu(c, &hvt_cpus_traced) {
		struct hvt_ring *r = hvt_ring_of(c);

		if (!r || (cpu >= 0 && c != cpu))
			continue;
		if (since_load) {
			overwritten += READ_ONCE(r->overwritten);
			drained += READ_ONCE(r->drained);
			continue;
		}
		overwritten += hvt_sub_floor0(READ_ONCE(r->overwritten),
					      READ_ONCE(r->overwritten_base));
		drained += hvt_sub_floor0(READ_ONCE(r->drained),
					  READ_ONCE(r->drained_base));
	}
	rcu_read_unlock_sched();
	nest = nla_nest_start(msg, HVTRACE_A_ACCT);
	if (!nest || (cpu >= 0 && nla_put_u32(msg, HVTRACE_ACCT_CPU, cpu)))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(acct_attr); i++)
		if (nla_put_u64_64bit(msg, acct_attr[i], n[i],
				      HVTRACE_ACCT_PAD))
			return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, HVTRACE_ACCT_OVERWRITTEN, overwritten,
			      HVTRACE_ACCT_PAD) ||
	    nla_put_u64_64bit(msg, HVTRACE_ACCT_DRAINED, drained,
			      HVTRACE_ACCT_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int put_u64(struct sk_buff *msg, int attr, u64 v)
{
	return nla_put_u64_64bit(msg, attr, v, HVTRACE_A_PAD);
}

static int put_status(struct sk_buff *msg, bool since_load)
{
	unsigned int ncpus = cpumask_weight(&hvt_cpus_traced);
	u64 since = since_load ? hvt_stats_loaded : READ_ONCE(hvt_stats_since);
	struct hvt_vcpu_counts n;
	const char *clock;
	u32 skew;

	hvt_vcpu_counts(&n);
	clock = hvt_clock_name(&skew);
	if (nla_put_string(msg, HVTRACE_A_VERSION, HVTRACE_VERSION) ||
	    nla_put_u32(msg, HVTRACE_A_ABI, HVTRACE_GENL_VERSION) ||
	    nla_put_u32(msg, HVTRACE_A_NR_CPUS, num_possible_cpus()) ||
	    nla_put_u32(msg, HVTRACE_A_CPUS_TRACED, ncpus) ||
	    nla_put_string(msg, HVTRACE_A_VENDOR, hvt_exit_info_vendor()) ||
	    nla_put_u8(msg, HVTRACE_A_RECORDING, READ_ONCE(hvt_recording)) ||
	    nla_put_u8(msg, HVTRACE_A_READER, hvt_lease_held()) ||
	    put_u64(msg, HVTRACE_A_EXITS_SEEN, hvt_exits_seen()) ||
	    put_u64(msg, HVTRACE_A_ENTRIES_SEEN, hvt_entries_seen()) ||
	    put_u64(msg, HVTRACE_A_EXITS_UNTRACED, hvt_exits_untraced()) ||
	    put_u64(msg, HVTRACE_A_STATS_AGE_NS, ktime_get_ns() - since) ||
	    nla_put_u32(msg, HVTRACE_A_VCPUS_LIVE, n.live) ||
	    nla_put_u32(msg, HVTRACE_A_VCPUS_MAX, n.max) ||
	    nla_put_u32(msg, HVTRACE_A_VMS_LIVE, n.vms) ||
	    put_u64(msg, HVTRACE_A_VCPUS_CREATED, n.created) ||
	    put_u64(msg, HVTRACE_A_VCPUS_RECLAIMED, n.reclaimed) ||
	    put_u64(msg, HVTRACE_A_VCPUS_REFUSED, n.refused) ||
	    nla_put_u8(msg, HVTRACE_A_RECLAIM, hvt_destroy_followed()) ||
	    put_u64(msg, HVTRACE_A_MEM_BYTES, hvt_mem_bytes()) ||
	    put_u64(msg, HVTRACE_A_MEM_CPU_BYTES, hvt_stats_cpu_bytes() +
		    hvt_buffers_cpu_bytes()) ||
	    put_u64(msg, HVTRACE_A_MEM_VCPU_BYTES, hvt_vcpu_bytes()) ||
	    nla_put_string(msg, HVTRACE_A_CLOCK, clock) ||
	    nla_put_u32(msg, HVTRACE_A_CLOCK_SKEW_NS, skew) ||
	    nla_put_u8(msg, HVTRACE_A_IRQ_PROBES, hvt_irq_probes()) ||
	    put_acct(msg, -1, since_load) || hvt_watch_put_status(msg))
		return -EMSGSIZE;
	return 0;
}

static int hvt_cmd_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	if (!hvt_may_observe(skb, info->extack))
		return -EPERM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hvt_family, 0,
				HVTRACE_CMD_GET_STATUS);
	mutex_lock(&hvt_ctl_mutex);	/* the buffers' size holds still */
	if (!hdr || put_status(msg, !!info->attrs[HVTRACE_A_SINCE_LOAD])) {
		mutex_unlock(&hvt_ctl_mutex);
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	mutex_unlock(&hvt_ctl_mutex);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* Dumps that may only observe. */
static int observe_start(struct netlink_callback *cb)
{
	return hvt_may_observe(cb->skb, cb->extack) ? 0 : -EPERM;
}

/* The per-CPU accounting: one message per traced CPU from args[0] on. */
static int status_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	int cpu;

	for (cpu = cpumask_next((int)cb->args[0] - 1, &hvt_cpus_traced);
	     cpu < nr_cpu_ids; cpu = cpumask_next(cpu, &hvt_cpus_traced)) {
		void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, &hvt_family,
					NLM_F_MULTI, HVTRACE_CMD_GET_STATUS);

		if (!hdr)
			break;
		if (put_acct(skb, cpu, since_load(cb->nlh))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = cpu + 1;
		cond_resched();
	}
	return skb->len;
}

/* ---- configuration --------------------------------------------------- */

static int put_reason(struct sk_buff *msg, unsigned int ridx)
{
	u8 isa;
	u32 code;

	if (!hvt_reason_of_index(ridx, &isa, &code))
		return nla_put_u8(msg, HVTRACE_RSN_ISA, isa);
	return nla_put_u8(msg, HVTRACE_RSN_ISA, isa) ||
	       nla_put_u32(msg, HVTRACE_RSN_CODE, code) ? -EMSGSIZE : 0;
}

/* Every single setting and the bitmaps: the first part of a CONFIG. */
static int put_config_settings(struct sk_buff *msg, const struct hvt_config *c,
			       u32 kb, u8 mode)
{
	if (nla_put_u64_64bit(msg, HVTRACE_CFG_THRESHOLD_NS, c->threshold_ns,
			      HVTRACE_CFG_PAD) ||
	    nla_put_u32(msg, HVTRACE_CFG_FILTER_PID, c->pid) ||
	    nla_put_u64_64bit(msg, HVTRACE_CFG_FILTER_RIP_MIN, c->rip_min,
			      HVTRACE_CFG_PAD) ||
	    nla_put_u64_64bit(msg, HVTRACE_CFG_FILTER_RIP_MAX, c->rip_max,
			      HVTRACE_CFG_PAD) ||
	    nla_put_u32(msg, HVTRACE_CFG_BUFFER_KB, kb) ||
	    nla_put_u8(msg, HVTRACE_CFG_MODE, mode) ||
	    nla_put_u8(msg, HVTRACE_CFG_THRESHOLD_ON, c->on) ||
	    nla_put_u8(msg, HVTRACE_CFG_HALT_TRIGGERS, c->halt_triggers) ||
	    nla_put_u64_64bit(msg, HVTRACE_CFG_PREEMPT_THRESHOLD_NS,
			      c->preempt_threshold_ns, HVTRACE_CFG_PAD) ||
	    nla_put_u64_64bit(msg, HVTRACE_CFG_IRQ_THRESHOLD_NS,
			      c->irq_threshold_ns, HVTRACE_CFG_PAD))
		return -EMSGSIZE;
	if ((c->filters & HVT_F_VCPU) &&
	    nla_put(msg, HVTRACE_CFG_FILTER_VCPUS, sizeof(c->vcpus), c->vcpus))
		return -EMSGSIZE;
	if ((c->filters & HVT_F_CPU) &&
	    nla_put(msg, HVTRACE_CFG_FILTER_CPUS,
		    BITS_TO_LONGS(nr_cpu_ids) * sizeof(long),
		    cpumask_bits(&c->cpus)))
		return -EMSGSIZE;
	return 0;
}

/* Per-reason thresholds from *POS on, up to MAX of them. */
static int put_config_overrides(struct sk_buff *msg,
				const struct hvt_config *c,
				unsigned int *pos, unsigned int max)
{
	struct nlattr *r;

	for (; *pos < HVT_NR_REASONS && max; ++*pos) {
		if (c->override[*pos] == HVT_NO_OVERRIDE)
			continue;
		r = nla_nest_start(msg, HVTRACE_CFG_REASON_THRESHOLD);
		if (!r || put_reason(msg, *pos) ||
		    nla_put_u64_64bit(msg, HVTRACE_RSN_THRESHOLD_NS,
				      c->override[*pos], HVTRACE_RSN_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, r);
		max--;
	}
	return 0;
}

/* The reason filter's entries from *POS on, up to MAX, in one list. */
static int put_config_reasons(struct sk_buff *msg, const struct hvt_config *c,
			      unsigned int *pos, unsigned int max)
{
	unsigned int n = 0;
	struct nlattr *list, *r;

	if (!(c->filters & HVT_F_REASON)) {
		*pos = HVT_NR_REASONS;
		return 0;
	}
	list = nla_nest_start(msg, HVTRACE_CFG_FILTER_REASONS);
	if (!list)
		return -EMSGSIZE;
	for (; *pos < HVT_NR_REASONS && n < max; ++*pos) {
		if (!test_bit(*pos, c->reasons))
			continue;
		r = nla_nest_start(msg, HVTRACE_A_REASON);
		if (!r || put_reason(msg, *pos))
			return -EMSGSIZE;
		nla_nest_end(msg, r);
		n++;
	}
	/* A batch that found no entry (the last one ended the list) says
	 * nothing: an empty list would read as "any reason".
	 */
	if (n)
		nla_nest_end(msg, list);
	else
		nla_nest_cancel(msg, list);
	return 0;
}

/* A reply that holds all of C: sized from what it holds. */
static size_t config_size(const struct hvt_config *c)
{
	size_t rsn = nla_total_size(0) + nla_total_size(sizeof(u8)) +
		     nla_total_size(sizeof(u32)) + nla_total_size_64bit(8);

	return NLMSG_GOODSIZE + sizeof(c->vcpus) + sizeof(struct cpumask) +
	       2 * HVT_NR_REASONS * rsn;
}

/* A private copy of the configuration and the buffers' settings. */
struct config_copy {
	u32 kb;
	u8 mode;
	struct hvt_config c;
};

static struct config_copy *config_copy(void)
{
	struct config_copy *cc = kvmalloc(sizeof(*cc), GFP_KERNEL);

	if (!cc)
		return NULL;
	mutex_lock(&hvt_ctl_mutex);
	cc->kb = hvt_buffers_kb();
	cc->mode = hvt_buffers_mode();
	memcpy(&cc->c, rcu_dereference_protected(hvt_cfg, true),
	       sizeof(cc->c));
	mutex_unlock(&hvt_ctl_mutex);
	return cc;
}

static int hvt_cmd_get_config(struct sk_buff *skb, struct genl_info *info)
{
	unsigned int ov = 0, rs = 0;
	struct config_copy *cc;
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	int err = -EMSGSIZE;

	if (!hvt_may_observe(skb, info->extack))
		return -EPERM;
	cc = config_copy();
	if (!cc)
		return -ENOMEM;
	msg = genlmsg_new(config_size(&cc->c), GFP_KERNEL);
	if (!msg) {
		kvfree(cc);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &hvt_family, 0,
				HVTRACE_CMD_GET_CONFIG);
	nest = hdr ? nla_nest_start(msg, HVTRACE_A_CONFIG) : NULL;
	if (nest && !put_config_settings(msg, &cc->c, cc->kb, cc->mode) &&
	    !put_config_overrides(msg, &cc->c, &ov, UINT_MAX) &&
	    !put_config_reasons(msg, &cc->c, &rs, UINT_MAX)) {
		nla_nest_end(msg, nest);
		genlmsg_end(msg, hdr);
		err = 0;
	}
	kvfree(cc);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Entries per message in the config dump: well within a page. */
#define HVT_CONFIG_BATCH 48

enum { CFG_DUMP_SETTINGS, CFG_DUMP_OVERRIDES, CFG_DUMP_REASONS, CFG_DUMP_END };

static int config_start(struct netlink_callback *cb)
{
	if (!hvt_may_observe(cb->skb, cb->extack))
		return -EPERM;
	cb->args[0] = (long)config_copy();
	return cb->args[0] ? 0 : -ENOMEM;
}

static int config_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[0]);
	return 0;
}

/* args: [0] the copy, [1] the part, [2] the position in it. */
static int config_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct config_copy *cc = (void *)cb->args[0];

	while (cb->args[1] < CFG_DUMP_END) {
		unsigned int pos = cb->args[2];
		struct nlattr *nest;
		void *hdr;
		int err;

		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hvt_family, NLM_F_MULTI,
				  HVTRACE_CMD_GET_CONFIG);
		nest = hdr ? nla_nest_start(skb, HVTRACE_A_CONFIG) : NULL;
		if (!nest)
			goto full;
		if (cb->args[1] == CFG_DUMP_SETTINGS) {
			err = put_config_settings(skb, &cc->c, cc->kb, cc->mode);
			pos = HVT_NR_REASONS;
		} else if (cb->args[1] == CFG_DUMP_OVERRIDES) {
			err = put_config_overrides(skb, &cc->c, &pos,
						   HVT_CONFIG_BATCH);
		} else {
			err = put_config_reasons(skb, &cc->c, &pos,
						 HVT_CONFIG_BATCH);
		}
		if (err)
			goto full;
		nla_nest_end(skb, nest);
		/* A part with nothing in it (no overrides, say) is not sent. */
		if (nla_len(nest))
			genlmsg_end(skb, hdr);
		else
			genlmsg_cancel(skb, hdr);
		cb->args[2] = pos;
		if (pos >= HVT_NR_REASONS) {
			cb->args[1]++;
			cb->args[2] = 0;
		}
		continue;
full:
		if (hdr)
			genlmsg_cancel(skb, hdr);
		/* Not even one part fits an empty message: give up. */
		return skb->len ?: -EMSGSIZE;
	}
	return skb->len;
}

/* A REASON nest (isa + code) to its dense index, or a negative error. */
static int parse_reason(const struct nlattr *nest, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	unsigned int ridx;
	int err;

	err = nla_parse_nested(tb, HVTRACE_RSN_MAX, nest, rsn_policy, extack);
	if (err)
		return err;
	if (!tb[HVTRACE_RSN_ISA] || !tb[HVTRACE_RSN_CODE]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "exit reason needs an ISA and a code");
		return -EINVAL;
	}
	ridx = hvt_reason_index(nla_get_u8(tb[HVTRACE_RSN_ISA]),
				nla_get_u32(tb[HVTRACE_RSN_CODE]));
	if (ridx == HVT_RIDX_VMX_OTHER || ridx == HVT_RIDX_SVM_OTHER) {
		NL_SET_ERR_MSG_ATTR(extack, tb[HVTRACE_RSN_CODE],
				    "no such exit reason");
		return -EINVAL;
	}
	return ridx;
}

static int apply_reason_thresholds(struct hvt_config *c,
				   const struct nlattr *cfg,
				   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[HVTRACE_RSN_MAX + 1];
	const struct nlattr *a;
	int rem, ridx;

	nla_for_each_nested(a, cfg, rem) {
		if (nla_type(a) != HVTRACE_CFG_REASON_THRESHOLD)
			continue;
		ridx = parse_reason(a, tb, extack);
		if (ridx < 0)
			return ridx;
		if (!tb[HVTRACE_RSN_THRESHOLD_NS]) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "reason threshold without a duration");
			return -EINVAL;
		}
		c->override[ridx] = nla_get_u64(tb[HVTRACE_RSN_THRESHOLD_NS]);
	}
	return 0;
}

static int apply_reason_filter(struct hvt_config *c, const struct nlattr *list,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[HVTRACE_RSN_MAX + 1];
	const struct nlattr *a;
	int rem, ridx;

	bitmap_zero(c->reasons, HVT_NR_REASONS);
	c->filters &= ~HVT_F_REASON;
	nla_for_each_nested(a, list, rem) {
		ridx = parse_reason(a, tb, extack);
		if (ridx < 0)
			return ridx;
		__set_bit(ridx, c->reasons);
		c->filters |= HVT_F_REASON;
	}
	/*
	 * The list has no policy of its own: the loop stops at the first
	 * bytes that are no attribute, and what follows must not be taken
	 * for the end of the list (or for "any", when it is the first).
	 */
	if (rem > 0) {
		NL_SET_ERR_MSG_ATTR(extack, list,
				    "exit reason list holds bytes that are no attribute");
		return -EINVAL;
	}
	return 0;
}

/*
 * Copy a user bitmap of u64 words into DST (NBITS long). 1 if any bit is
 * set, 0 if none, -EINVAL for a ragged length, -ERANGE for a bit at or
 * beyond LIMIT.
 */
int hvt_nla_bitmap(unsigned long *dst, unsigned int nbits,
		   const struct nlattr *a, unsigned int limit)
{
	unsigned int len = nla_len(a), i;
	u64 w;

	if (len % sizeof(u64))
		return -EINVAL;
	for (i = 0; i < len / sizeof(u64); i++) {
		memcpy(&w, (u8 *)nla_data(a) + i * sizeof(u64), sizeof(w));
		if (i * 64 >= limit && w)
			return -ERANGE;
		if (i * 64 < limit && limit - i * 64 < 64 &&
		    w >> (limit - i * 64))
			return -ERANGE;
	}
	bitmap_zero(dst, nbits);
	/* nla_data() is 4-byte aligned: fine for x86's 64-bit loads. */
	bitmap_from_arr64(dst, nla_data(a), min(len * 8, limit));
	return bitmap_empty(dst, nbits) ? 0 : 1;
}

static int apply_config(struct hvt_config *c, struct nlattr **tb,
			const struct nlattr *cfg, struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int err;

	if (tb[HVTRACE_CFG_FILTERS_CLEAR])
		hvt_config_reset_filters(c);
	if (tb[HVTRACE_CFG_REASON_THRESHOLDS_CLEAR])
		hvt_config_reset_overrides(c);
	if (tb[HVTRACE_CFG_THRESHOLD_NS])
		c->threshold_ns = nla_get_u64(tb[HVTRACE_CFG_THRESHOLD_NS]);
	if (tb[HVTRACE_CFG_THRESHOLD_ON])
		c->on = nla_get_u8(tb[HVTRACE_CFG_THRESHOLD_ON]);
	if (tb[HVTRACE_CFG_HALT_TRIGGERS])
		c->halt_triggers = nla_get_u8(tb[HVTRACE_CFG_HALT_TRIGGERS]);
	if (tb[HVTRACE_CFG_PREEMPT_THRESHOLD_NS])
		c->preempt_threshold_ns =
			nla_get_u64(tb[HVTRACE_CFG_PREEMPT_THRESHOLD_NS]);
	a = tb[HVTRACE_CFG_IRQ_THRESHOLD_NS];
	if (a) {
		u64 ns = nla_get_u64(a);

		if (ns > HVTRACE_THRESHOLD_NS_MAX &&
		    ns != HVTRACE_IRQ_THRESHOLD_OFF) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "interrupt threshold over an hour, and not off");
			return -ERANGE;
		}
		c->irq_threshold_ns = ns;
	}
	err = apply_reason_thresholds(c, cfg, extack);
	if (err)
		return err;

	if (tb[HVTRACE_CFG_FILTER_PID]) {
		c->pid = nla_get_u32(tb[HVTRACE_CFG_FILTER_PID]);
		if (c->pid)
			c->filters |= HVT_F_PID;
		else
			c->filters &= ~HVT_F_PID;
	}
	if (tb[HVTRACE_CFG_FILTER_VCPUS]) {
		a = tb[HVTRACE_CFG_FILTER_VCPUS];
		err = hvt_nla_bitmap(c->vcpus, HVT_NR_VCPU_IDS, a, HVT_NR_VCPU_IDS);
		if (err == -ERANGE)
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "vCPU id beyond the largest KVM allows");
		if (err == -EINVAL)
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "vCPU bitmap is not made of 64-bit words");
		if (err < 0)
			return -EINVAL;
		if (err)
			c->filters |= HVT_F_VCPU;
		else
			c->filters &= ~HVT_F_VCPU;
	}
	if (tb[HVTRACE_CFG_FILTER_CPUS]) {
		a = tb[HVTRACE_CFG_FILTER_CPUS];
		err = hvt_nla_bitmap(cpumask_bits(&c->cpus), nr_cpumask_bits, a,
				     nr_cpu_ids);
		if (err == -ERANGE)
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "no such CPU in the CPU filter");
		if (err == -EINVAL)
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "CPU bitmap is not made of 64-bit words");
		if (err < 0)
			return -EINVAL;
		if (err)
			c->filters |= HVT_F_CPU;
		else
			c->filters &= ~HVT_F_CPU;
	}
	if (tb[HVTRACE_CFG_FILTER_REASONS]) {
		err = apply_reason_filter(c, tb[HVTRACE_CFG_FILTER_REASONS],
					  extack);
		if (err)
			return err;
	}
	if (tb[HVTRACE_CFG_FILTER_RIP_MIN])
		c->rip_min = nla_get_u64(tb[HVTRACE_CFG_FILTER_RIP_MIN]);
	if (tb[HVTRACE_CFG_FILTER_RIP_MAX])
		c->rip_max = nla_get_u64(tb[HVTRACE_CFG_FILTER_RIP_MAX]);
	if (c->rip_min > c->rip_max) {
		NL_SET_ERR_MSG_ATTR(extack, tb[HVTRACE_CFG_FILTER_RIP_MIN] ?:
				    tb[HVTRACE_CFG_FILTER_RIP_MAX],
				    "RIP range minimum above its maximum");
		return -EINVAL;
	}
	if (c->rip_min || c->rip_max != U64_MAX)
		c->filters |= HVT_F_RIP;
	else
		c->filters &= ~HVT_F_RIP;
	return 0;
}

static int set_config(struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[HVTRACE_CFG_MAX + 1];
	struct nlattr *cfg = info->attrs[HVTRACE_A_CONFIG];
	struct hvt_config *c;
	u32 kb = hvt_buffers_kb();
	u8 mode = hvt_buffers_mode();
	bool resize;
	int err;

	if (!cfg) {
		NL_SET_ERR_MSG_MOD(extack, "no configuration in the request");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, HVTRACE_CFG_MAX, cfg, cfg_policy, extack);
	if (err)
		return err;

	if (tb[HVTRACE_CFG_BUFFER_KB])
		kb = nla_get_u32(tb[HVTRACE_CFG_BUFFER_KB]);
	if (tb[HVTRACE_CFG_MODE])
		mode = nla_get_u8(tb[HVTRACE_CFG_MODE]);
	resize = kb != hvt_buffers_kb() || mode != hvt_buffers_mode();
	if (resize && (READ_ONCE(hvt_recording) || hvt_lease_held())) {
		NL_SET_ERR_MSG_ATTR(extack, tb[HVTRACE_CFG_BUFFER_KB] ?:
				    tb[HVTRACE_CFG_MODE],
				    "stop recording and reading before changing the buffers");
		return -EBUSY;
	}

	c = hvt_config_dup();
	if (!c)
		return -ENOMEM;
	err = apply_config(c, tb, cfg, extack);
	/* Buffers last: the one step that can fail for lack of memory. */
	if (!err && resize) {
		if (hvt_reader_get()) {
			err = hvt_buffers_resize(kb, mode, extack);
			hvt_reader_put();
		} else {
			NL_SET_ERR_MSG_MOD(extack, "a reader is draining the buffers");
			err = -EBUSY;
		}
	}
	if (err) {
		kfree(c);
		return err;
	}
	hvt_config_publish(c);
	return 0;
}

static int hvt_cmd_set_config(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	if (!hvt_may_change(skb, info->extack))
		return -EPERM;
	mutex_lock(&hvt_ctl_mutex);
	err = set_config(info);
	mutex_unlock(&hvt_ctl_mutex);
	return err;
}

/* ---- start, stop, clear ---------------------------------------------- */

static int hvt_cmd_start(struct sk_buff *skb, struct genl_info *info)
{
	if (!hvt_may_change(skb, info->extack))
		return -EPERM;
	/* Not while a buffer change swaps the rings it checked idle. */
	mutex_lock(&hvt_ctl_mutex);
	hvt_recording_set(true);
	mutex_unlock(&hvt_ctl_mutex);
	return 0;
}

static int hvt_cmd_stop(struct sk_buff *skb, struct genl_info *info)
{
	if (!hvt_may_change(skb, info->extack))
		return -EPERM;
	/* Not while a buffer change swaps the rings it checked idle. */
	mutex_lock(&hvt_ctl_mutex);
	hvt_recording_set(false);
	mutex_unlock(&hvt_ctl_mutex);
	return 0;
}

static int hvt_cmd_clear(struct sk_buff *skb, struct genl_info *info)
{
	int err = 0;

	if (!hvt_may_change(skb, info->extack))
		return -EPERM;
	mutex_lock(&hvt_ctl_mutex);
	/*
	 * Clearing under a reader would discard records it has not read
	 * yet, and its own count of them would no longer add up.
	 */
	if (hvt_lease_held() || !hvt_reader_get()) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "a reader owns the buffers (hvctl record?): clearing would discard its events");
		err = -EBUSY;
	} else {
		bool recording = READ_ONCE(hvt_recording);

		/*
		 * Nothing records while the counters and the rings are
		 * emptied, so none of them counts a record the other lost.
		 * The flag alone: hvt_details stays as it is.
		 */
		WRITE_ONCE(hvt_recording, false);
		synchronize_rcu();	/* the probes run with preemption off */
		hvt_stats_clear();
		hvt_buffers_clear();
		WRITE_ONCE(hvt_recording, recording);
		hvt_reader_put();
	}
	mutex_unlock(&hvt_ctl_mutex);
	return err;
}

/* ---- statistics dump ------------------------------------------------- */

/* Histogram buckets per message: 2 KiB, well within a page. */
#define HVT_HIST_BATCH 128
/* A vCPU's reasons per message: 2.3 KiB, within a page with the rest. */
#define HVT_VCPU_RSN_BATCH 96

/* Attributes of LEN bytes, and of a u64 with its worst-case pad. */
#define HVT_NLA(len)	NLA_ALIGN(NLA_HDRLEN + (len))
#define HVT_NLA_U64	(HVT_NLA(sizeof(u64)) + HVT_NLA(0))
/*
 * A vCPU's first message at its largest (put_vcpu_stats()): headers, the
 * nest, 5 u32, 11 u64 and the parts, 2 u8, its interrupts' rows,
 * their splits and percentiles, a full batch of reasons.
 */
#define HVT_VCPU_MSG_MAX						\
	(NLMSG_HDRLEN + GENL_HDRLEN + HVT_NLA(0) +			\
	 5 * HVT_NLA(sizeof(u32)) +					\
	 (11 + HVTRACE_NR_PARTS) * HVT_NLA_U64 +			\
	 2 * HVT_NLA(sizeof(u8)) +					\
	 HVT_NLA(HVT_IRQ_ROWS * sizeof(struct hvtrace_vcpu_irq)) +	\
	 HVT_NLA(HVT_IRQ_ROWS * sizeof(struct hvtrace_vcpu_irq_split)) + \
	 HVT_NLA(HVT_IRQ_ROWS * sizeof(struct hvtrace_vcpu_irq_pct)) +	\
	 HVT_NLA(HVT_VCPU_RSN_BATCH * sizeof(struct hvtrace_vcpu_reason)))

enum { ST_REASONS, ST_VCPUS, ST_DEPARTED, ST_PREEMPTORS };

struct stats_dump {
	bool since_load;	/* the request's HVTRACE_A_SINCE_LOAD */
	unsigned int phase;	/* what pos counts: ST_* */
	unsigned int pos;
	/* The reason at pos, merged: its buckets go out in batches. */
	bool merged;
	bool head_sent;		/* its counters went out */
	bool has_hist;
	unsigned int nr_buckets, sent;
	struct hvt_reason_stat s;
	/* The vCPU at pos, copied: its reasons go out in batches. */
	bool vcpu_taken;
	bool vcpu_head_sent;	/* its counters went out */
	const struct hvt_vcpu *vcpu;	/* alive; NULL: departed */
	struct hvt_vcpu_view view;
	unsigned int nr_rsn, rsn_sent;
	struct hvtrace_vcpu_reason rsn[HVT_VCPU_NR_RSN];
	unsigned int nr_preemptors;
	struct hvt_preemptor preemptors[HVT_NR_PREEMPTORS * 4];
	struct hvt_hist hist;
	struct hvtrace_hist_bucket buckets[HVTRACE_HIST_BUCKETS];
};

static int stats_start(struct netlink_callback *cb)
{
	struct stats_dump *d;

	if (!hvt_may_observe(cb->skb, cb->extack))
		return -EPERM;
	d = kvzalloc(sizeof(*d), GFP_KERNEL);
	cb->args[0] = (long)d;
	if (!d)
		return -ENOMEM;
	d->since_load = since_load(cb->nlh);
	return 0;
}

static int stats_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[0]);
	return 0;
}

/* The parts of a time, as consecutive attributes from FIRST on. */
static int put_parts(struct sk_buff *skb, int first, const u64 *part_ns,
		     int pad)
{
	int i;

	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		if (nla_put_u64_64bit(skb, first + i, READ_ONCE(part_ns[i]),
				      pad))
			return -EMSGSIZE;
	return 0;
}

/* Merge the reason at d->pos over CPUs; false when it saw no exit. */
static bool reason_merge(struct stats_dump *d)
{
	unsigned int i, n = 0;

	d->has_hist = hvt_reason_merge(d->pos, &d->s, &d->hist,
				       d->since_load);
	d->merged = true;
	d->head_sent = false;
	d->sent = 0;
	for (i = 0; d->has_hist && i < HVTRACE_HIST_BUCKETS; i++) {
		if (!d->hist.bucket[i])
			continue;
		d->buckets[n].index = i;
		d->buckets[n].pad = 0;
		d->buckets[n].count = d->hist.bucket[i];
		n++;
	}
	d->nr_buckets = n;
	return d->s.count;
}

/*
 * The reason at d->pos: its counters and first batch of buckets, or,
 * once those went out, the next batch alone.
 */
static int put_reason_stats(struct sk_buff *skb, struct stats_dump *d)
{
	const struct hvt_reason_stat *s = &d->s;
	struct nlattr *nest = nla_nest_start(skb, HVTRACE_A_REASON);
	unsigned int n = min(d->nr_buckets - d->sent, HVT_HIST_BATCH);

	if (!nest || put_reason(skb, d->pos))
		return -EMSGSIZE;
	if (!d->head_sent &&
	    (nla_put_u64_64bit(skb, HVTRACE_RSN_COUNT, s->count,
			       HVTRACE_RSN_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_RSN_TOTAL_NS, s->total_ns,
			       HVTRACE_RSN_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_RSN_MIN_NS, s->min_ns,
			       HVTRACE_RSN_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_RSN_MAX_NS, s->max_ns,
			       HVTRACE_RSN_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_RSN_NO_ENTRY, s->no_entry,
			       HVTRACE_RSN_PAD) ||
	     put_parts(skb, HVTRACE_RSN_VMM_NS, s->part_ns, HVTRACE_RSN_PAD)))
		return -EMSGSIZE;
	if (d->has_hist &&
	    nla_put(skb, HVTRACE_RSN_HIST, n * sizeof(d->buckets[0]),
		    &d->buckets[d->sent]))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	d->head_sent = true;
	d->sent += n;
	return 0;
}

/* Where a vCPU out of the guest is now (racy: a snapshot). */
static u8 vcpu_state(const struct hvt_vcpu *v)
{
	u8 where = READ_ONCE(v->split.where);

	if (where == HVT_OFF_RUNNABLE)
		return HVTRACE_VCPU_RUNNABLE;
	if (READ_ONCE(v->split.in_user))
		return HVTRACE_VCPU_IN_VMM;
	return where == HVT_OFF_BLOCKED ? HVTRACE_VCPU_BLOCKED :
					  HVTRACE_VCPU_IN_KERNEL;
}

static int put_vcpu_exit(struct sk_buff *skb, const struct hvt_vcpu *v)
{
	u64 since = READ_ONCE(v->split.exit_ts);

	if (!READ_ONCE(v->split.in_exit))
		return 0;
	return nla_put_u8(skb, HVTRACE_VCPU_EXIT_ISA, READ_ONCE(v->isa)) ||
	       nla_put_u32(skb, HVTRACE_VCPU_EXIT_REASON,
			   READ_ONCE(v->reason)) ||
	       nla_put_u64_64bit(skb, HVTRACE_VCPU_EXIT_NS,
				 hvt_since(hvt_clock(), since),
				 HVTRACE_VCPU_PAD) ||
	       nla_put_u8(skb, HVTRACE_VCPU_EXIT_STATE, vcpu_state(v)) ?
	       -EMSGSIZE : 0;
}

/*
 * The interrupts delivered to a vCPU: attributes only where nonzero; the
 * percentiles where HIST is given (its rows since the clear: IRQS's).
 */
static int put_vcpu_irqs(struct sk_buff *skb, const struct hvt_vcpu_irqs *irqs,
			 const struct hvt_irq_hist *hist)
{
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];
	unsigned int n = hvt_irqs_rows(irqs, rows);
	u64 posted = atomic64_read(&irqs->posted);
	struct nlattr *a;

	if (n && nla_put(skb, HVTRACE_VCPU_IRQS, n * sizeof(rows[0]), rows))
		return -EMSGSIZE;
	if (n) {
		a = nla_reserve(skb, HVTRACE_VCPU_IRQ_SPLIT,
				n * sizeof(struct hvtrace_vcpu_irq_split));
		if (!a)
			return -EMSGSIZE;
		hvt_irqs_split(irqs, nla_data(a));
	}
	if (n && hist) {
		a = nla_reserve(skb, HVTRACE_VCPU_IRQ_PCT,
				n * sizeof(struct hvtrace_vcpu_irq_pct));
		if (!a)
			return -EMSGSIZE;
		hvt_irqs_pct(irqs, hist, nla_data(a));
	}
	if (irqs->unmatched &&
	    nla_put_u64_64bit(skb, HVTRACE_VCPU_IRQ_UNMATCHED, irqs->unmatched,
			      HVTRACE_VCPU_PAD))
		return -EMSGSIZE;
	if (irqs->reinjected &&
	    nla_put_u64_64bit(skb, HVTRACE_VCPU_IRQ_REINJECTED,
			      irqs->reinjected, HVTRACE_VCPU_PAD))
		return -EMSGSIZE;
	if (posted && nla_put_u64_64bit(skb, HVTRACE_VCPU_IRQ_POSTED, posted,
					HVTRACE_VCPU_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * The vCPU in D->view: its counters (and the exit in progress of a live
 * one, D->vcpu) with the first batch of its reasons, or, once those went
 * out, its identity and the next batch alone.
 */
static int put_vcpu_stats(struct sk_buff *skb, struct stats_dump *d)
{
	const struct hvt_vcpu_view *w = &d->view;
	const struct hvt_vcpu_stat *st = &w->stat;
	unsigned int n = min(d->nr_rsn - d->rsn_sent, HVT_VCPU_RSN_BATCH);
	struct nlattr *nest = nla_nest_start(skb, HVTRACE_A_VCPU);

	/* A dump's message has room for one at least: never "none fits". */
	BUILD_BUG_ON(HVT_VCPU_MSG_MAX > NLMSG_GOODSIZE);
	if (!nest ||
	    nla_put_u32(skb, HVTRACE_VCPU_VM_ID, w->vm_id) ||
	    nla_put_u32(skb, HVTRACE_VCPU_VM_PID, w->vm_pid) ||
	    nla_put_u32(skb, HVTRACE_VCPU_ID, w->vcpu_id))
		return -EMSGSIZE;
	if (!d->vcpu_head_sent &&
	    (nla_put_u32(skb, HVTRACE_VCPU_TID, w->tid) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_COUNT, st->exits.count,
			       HVTRACE_VCPU_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_TOTAL_NS, st->exits.total_ns,
			       HVTRACE_VCPU_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_MIN_NS, st->exits.min_ns,
			       HVTRACE_VCPU_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_MAX_NS, st->exits.max_ns,
			       HVTRACE_VCPU_PAD) ||
	     put_parts(skb, HVTRACE_VCPU_VMM_NS, st->exits.part_ns,
		       HVTRACE_VCPU_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_GUEST_NS, st->guest_ns,
			       HVTRACE_VCPU_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_PREEMPTIONS, st->preemptions,
			       HVTRACE_VCPU_PAD) ||
	     nla_put_u64_64bit(skb, HVTRACE_VCPU_PREEMPTED_NS,
			       st->preempted_ns, HVTRACE_VCPU_PAD) ||
	     put_vcpu_irqs(skb, &st->irqs,
			   d->since_load ? NULL : &w->irq_hist) ||
	     (d->vcpu ? put_vcpu_exit(skb, d->vcpu) :
			nla_put_u8(skb, HVTRACE_VCPU_GONE, 1))))
		return -EMSGSIZE;
	if (n && nla_put(skb, HVTRACE_VCPU_REASONS, n * sizeof(d->rsn[0]),
			 &d->rsn[d->rsn_sent]))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	d->vcpu_head_sent = true;
	d->rsn_sent += n;
	return 0;
}

/* The vCPU V (NULL: the departed one in D->view already) is next. */
static void vcpu_take(struct stats_dump *d, const struct hvt_vcpu *v)
{
	unsigned int i, ridx, n = 0;

	if (v)
		hvt_vcpu_view(v, &d->view, d->since_load);
	d->vcpu = v;
	d->vcpu_taken = true;
	d->vcpu_head_sent = false;
	d->rsn_sent = 0;
	for (i = 0; d->since_load && i < HVT_VCPU_NR_RSN; i++) {
		const struct hvt_vcpu_rsn *r = &d->view.rsn[i];
		struct hvtrace_vcpu_reason *e = &d->rsn[n];
		u32 code;
		u8 isa;

		ridx = hvt_vcpu_rsn_ridx(i, d->view.isa);
		if (!r->count || ridx >= HVT_NR_REASONS)
			continue;
		memset(e, 0, sizeof(*e));
		if (!hvt_reason_of_index(ridx, &isa, &code)) {
			code = 0;
			e->flags = HVTRACE_VCPU_RSN_CATCH_ALL;
		}
		e->isa = isa;
		e->code = code;
		e->count = r->count;
		e->total_ns = r->ns;
		n++;
	}
	d->nr_rsn = n;
}

static int put_preemptor(struct sk_buff *skb, const struct hvt_preemptor *p)
{
	struct nlattr *nest = nla_nest_start(skb, HVTRACE_A_PREEMPTOR);
	char comm[TASK_COMM_LEN];

	strscpy(comm, p->comm, sizeof(comm));
	if (!nest || nla_put_u32(skb, HVTRACE_PRE_PID, p->pid) ||
	    nla_put_string(skb, HVTRACE_PRE_COMM, comm) ||
	    nla_put_u8(skb, HVTRACE_PRE_VCPU, p->vcpu) ||
	    nla_put_u64_64bit(skb, HVTRACE_PRE_COUNT, p->count,
			      HVTRACE_PRE_PAD) ||
	    nla_put_u64_64bit(skb, HVTRACE_PRE_NS, p->ns, HVTRACE_PRE_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A vCPU worth a message: active since the last clear (or SINCE_LOAD,
 * ever), or out now.
 */
static bool vcpu_shown(const struct hvt_vcpu *v, bool since_load)
{
	if (READ_ONCE(v->split.in_exit))
		return true;
	if (since_load)
		return READ_ONCE(v->stat.exits.count) ||
		       READ_ONCE(v->stat.preemptions);
	return READ_ONCE(v->gen) == READ_ONCE(hvt_gen) &&
	       (READ_ONCE(v->stat.exits.count) !=
		READ_ONCE(v->base.exits.count) ||
		READ_ONCE(v->stat.preemptions) !=
		READ_ONCE(v->base.preemptions));
}

/* Advance D to the next thing to send; false when the dump is done. */
static bool stats_next(struct stats_dump *d)
{
	const struct hvt_vcpu *v;

	for (;; d->pos++) {
		/* Tables of tens of thousands of slots: let others run. */
		if (!(d->pos & 1023))
			cond_resched();
		switch (d->phase) {
		case ST_REASONS:
			if (d->pos >= HVT_NR_REASONS)
				break;
			if (d->merged &&
			    (!d->head_sent || d->sent < d->nr_buckets))
				return true;	/* it, or more of its histogram */
			if (!d->merged && reason_merge(d))
				return true;
			d->merged = false;
			continue;
		case ST_VCPUS:
			if (d->pos >= hvt_vcpu_slots())
				break;
			if (d->vcpu_taken)
				return true;	/* more of its reasons */
			v = hvt_vcpu_at(d->pos);
			if (v && vcpu_shown(v, d->since_load)) {
				vcpu_take(d, v);
				return true;
			}
			continue;
		case ST_DEPARTED:
			if (d->pos >= HVTRACE_VCPUS_DEPARTED)
				break;
			if (d->vcpu_taken)
				return true;
			if (hvt_vcpu_departed(d->pos, &d->view, d->since_load)) {
				vcpu_take(d, NULL);
				return true;
			}
			continue;
		case ST_PREEMPTORS:
			return d->pos < d->nr_preemptors;
		}
		/* This phase is done: the next one starts at 0. */
		d->phase++;
		d->pos = -1;
		if (d->phase == ST_PREEMPTORS)
			d->nr_preemptors =
				hvt_preemptors_merge(d->preemptors,
						     ARRAY_SIZE(d->preemptors));
	}
}

static int stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct stats_dump *d = (void *)cb->args[0];
	void *hdr;
	int err;

	while (stats_next(d)) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hvt_family, NLM_F_MULTI,
				  HVTRACE_CMD_GET_STATS);
		if (!hdr)
			return skb->len;
		if (d->phase == ST_REASONS)
			err = put_reason_stats(skb, d);
		else if (d->phase == ST_PREEMPTORS)
			err = put_preemptor(skb, &d->preemptors[d->pos]);
		else
			err = put_vcpu_stats(skb, d);
		if (err) {
			genlmsg_cancel(skb, hdr);
			/* Not even one fits in an empty message: give up. */
			return skb->len ?: err;
		}
		genlmsg_end(skb, hdr);
		/* A reason stays until its histogram is out, a vCPU until
		 * its reasons are.
		 */
		if (d->phase == ST_PREEMPTORS) {
			d->pos++;
		} else if (d->phase != ST_REASONS &&
			   d->rsn_sent == d->nr_rsn) {
			d->vcpu_taken = false;
			d->pos++;
		}
	}
	return skb->len;
}

/* ---- event drain ----------------------------------------------------- */

struct events_dump {
	unsigned int cpu;
	unsigned long taken;	/* from this CPU during this dump */
	bool reader;
};

static int events_start(struct netlink_callback *cb)
{
	struct events_dump *d;

	BUILD_BUG_ON(sizeof(*d) > sizeof(cb->ctx));
	d = (void *)cb->ctx;
	memset(d, 0, sizeof(*d));
	if (!hvt_may_change(cb->skb, cb->extack))
		return -EPERM;
	if (!hvt_lease_take(NETLINK_CB(cb->skb).portid)) {
		NL_SET_ERR_MSG_MOD(cb->extack,
				   "another reader owns the buffers (an hvctl record?)");
		return -EBUSY;
	}
	if (!hvt_reader_get()) {
		NL_SET_ERR_MSG_MOD(cb->extack,
				   "another reader is draining the buffers");
		return -EBUSY;
	}
	d->reader = true;
	d->cpu = cpumask_first(&hvt_cpus_traced);
	return 0;
}

static int events_done(struct netlink_callback *cb)
{
	struct events_dump *d = (void *)cb->ctx;

	if (d->reader)
		hvt_reader_put();
	return 0;
}

static int events_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct events_dump *d = (void *)cb->ctx;
	const size_t ev = sizeof(struct hvtrace_event);

	while (d->cpu < nr_cpu_ids) {
		struct hvt_ring *r = hvt_ring_of(d->cpu);
		struct hvt_acct a;
		struct nlattr *attr;
		unsigned int room, n;
		void *hdr;

		if (!r) {	/* no memory for it: its records were lost */
			d->cpu = cpumask_next(d->cpu, &hvt_cpus_traced);
			continue;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hvt_family, NLM_F_MULTI,
				  HVTRACE_CMD_READ_EVENTS);
		if (!hdr)
			return skb->len;
		hvt_acct_sum(&a, d->cpu, false);
		if (nla_put_u32(skb, HVTRACE_A_EVENTS_CPU, d->cpu) ||
		    nla_put_u64_64bit(skb, HVTRACE_A_EVENTS_LOST, a.lost,
				      HVTRACE_A_PAD))
			goto full;
		room = skb_tailroom(skb);
		if (room < nla_total_size(ev) + 64)
			goto full;
		room = (room - nla_total_size(0) - 64) / ev;
		/* Bounded per CPU and dump, so a busy CPU cannot hold us. */
		room = min_t(unsigned long, room, r->mask + 1 - d->taken);
		attr = nla_reserve(skb, HVTRACE_A_EVENTS, room * ev);
		if (!attr)
			goto full;
		n = hvt_ring_read(r, nla_data(attr), room);
		d->taken += n;
		/* Give back the part of the attribute left unused. */
		attr->nla_len = nla_attr_size(n * ev);
		nlmsg_trim(skb, (u8 *)nla_data(attr) + NLA_ALIGN(n * ev));
		if (nla_put_u64_64bit(skb, HVTRACE_A_EVENTS_OVERWRITTEN,
				      hvt_sub_floor0(r->overwritten,
						     r->overwritten_base),
				      HVTRACE_A_PAD))
			goto full;
		genlmsg_end(skb, hdr);
		if (n < room || d->taken > r->mask) {
			WRITE_ONCE(r->notified, false);
			d->cpu = cpumask_next(d->cpu, &hvt_cpus_traced);
			d->taken = 0;
		}
		if (n)
			return skb->len;	/* one CPU's batch per message */
		continue;
full:
		genlmsg_cancel(skb, hdr);
		return skb->len;
	}
	return 0;
}

/* ---- notifications: watermark, capture ------------------------------- */

static const struct genl_multicast_group hvt_mcgrps[] = {
	{ .name = HVTRACE_MCGRP_EVENTS, .flags = GENL_MCAST_CAP_SYS_ADMIN },
};

static void notify(u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&hvt_family, &init_net, 0))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &hvt_family, 0, cmd);
	if (!hdr) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&hvt_family, msg, 0, 0, GFP_KERNEL);
}

void hvt_genl_notify_watermark(void)
{
	notify(HVTRACE_CMD_WATERMARK);
}

void hvt_genl_notify_capture(void)
{
	notify(HVTRACE_CMD_CAPTURE);
}

/* ---- the family ------------------------------------------------------ */

/* Each handler tests its own privilege: see the top of this file. */
static const struct genl_ops hvt_ops[] = {
	{
		.cmd	= HVTRACE_CMD_GET_STATUS,
		.doit	= hvt_cmd_get_status,
		.start	= observe_start,
		.dumpit	= status_dump,
	},
	{
		.cmd	= HVTRACE_CMD_GET_CONFIG,
		.doit	= hvt_cmd_get_config,
		.start	= config_start,
		.dumpit	= config_dump,
		.done	= config_done,
	},
	{
		.cmd	= HVTRACE_CMD_SET_CONFIG,
		.doit	= hvt_cmd_set_config,
	},
	{
		.cmd	= HVTRACE_CMD_START,
		.doit	= hvt_cmd_start,
	},
	{
		.cmd	= HVTRACE_CMD_STOP,
		.doit	= hvt_cmd_stop,
	},
	{
		.cmd	= HVTRACE_CMD_CLEAR,
		.doit	= hvt_cmd_clear,
	},
	{
		.cmd	= HVTRACE_CMD_GET_STATS,
		.start	= stats_start,
		.dumpit	= stats_dump,
		.done	= stats_done,
	},
	{
		.cmd	= HVTRACE_CMD_READ_EVENTS,
		.start	= events_start,
		.dumpit	= events_dump,
		.done	= events_done,
	},
	{
		.cmd	= HVTRACE_CMD_WATCH_START,
		.doit	= hvt_cmd_watch_start,
	},
	{
		.cmd	= HVTRACE_CMD_WATCH_STOP,
		.doit	= hvt_cmd_watch_stop,
	},
	{
		.cmd	= HVTRACE_CMD_READ_CAPTURES,
		.start	= hvt_captures_start,
		.dumpit	= hvt_captures_dump,
		.done	= hvt_captures_done,
	},
};

struct genl_family hvt_family __ro_after_init = {
	.name		= HVTRACE_GENL_NAME,
	.version	= HVTRACE_GENL_VERSION,
	.maxattr	= HVTRACE_A_MAX,
	.policy		= hvt_policy,
	.netnsok	= false,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= hvt_ops,
	.n_ops		= ARRAY_SIZE(hvt_ops),
	.mcgrps		= hvt_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(hvt_mcgrps),
	.resv_start_op	= HVTRACE_CMD_GET_STATUS,
};

int __init hvt_genl_register(void)
{
	return genl_register_family(&hvt_family);
}

void hvt_genl_unregister(void)
{
	genl_unregister_family(&hvt_family);
}

MODULE_ALIAS_GENL_FAMILY(HVTRACE_GENL_NAME);
