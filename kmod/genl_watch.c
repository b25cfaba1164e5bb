// SPDX-License-Identifier: GPL-2.0
/*
 * The watch's commands in the "hvtrace" family: WATCH_START, WATCH_STOP,
 * READ_CAPTURES, and the watch's part of GET_STATUS (the ABI is drawn in
 * include/uapi/linux/hvtrace.h; watch.h draws the watch itself).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <net/genetlink.h>

#include "genl.h"
#include "irq.h"
#include "mem.h"
#include "params.h"
#include "watch.h"

static struct netlink_range_validation ns_range = {
	.max = HVTRACE_THRESHOLD_NS_MAX,
};

static struct netlink_range_validation history_range = {
	.min = 1,
	.max = HVTRACE_WATCH_HISTORY_MAX,
};

static struct netlink_range_validation post_range = {
	.max = HVTRACE_WATCH_POST_NS_MAX,
};

const struct nla_policy hvt_watch_policy[HVTRACE_WATCH_MAX + 1] = {
	[HVTRACE_WATCH_EXIT_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ns_range),
	[HVTRACE_WATCH_EXIT_ON] = NLA_POLICY_MAX(NLA_U8, HVTRACE_ON_MAX),
	[HVTRACE_WATCH_HALT_TRIGGERS] = NLA_POLICY_MAX(NLA_U8, 1),
	[HVTRACE_WATCH_STALL_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ns_range),
	[HVTRACE_WATCH_STALL_WINDOW_NS] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &ns_range),
	[HVTRACE_WATCH_PREEMPT_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ns_range),
	[HVTRACE_WATCH_HISTORY] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&history_range),
	[HVTRACE_WATCH_POST_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &post_range),
	[HVTRACE_WATCH_RATE] = NLA_POLICY_RANGE(NLA_U32, 1,
						HVTRACE_WATCH_RATE_MAX),
	[HVTRACE_WATCH_RATE_TOTAL] = NLA_POLICY_RANGE(NLA_U32, 1,
						      HVTRACE_WATCH_RATE_MAX),
	[HVTRACE_WATCH_FILTER_PID] = { .type = NLA_U32 },
	[HVTRACE_WATCH_FILTER_VCPUS] = { .type = NLA_BINARY,
					 .len = HVT_NR_VCPU_IDS / 8 },
	[HVTRACE_WATCH_MARK_TRIGGERS] = NLA_POLICY_MAX(NLA_U8, 1),
	[HVTRACE_WATCH_MARK_PID] = { .type = NLA_U32 },
	[HVTRACE_WATCH_IRQ_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ns_range),
};

static u64 get_u64(struct nlattr **tb, int attr, u64 def)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : def;
}

static u32 get_u32(struct nlattr **tb, int attr, u32 def)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : def;
}

/* The watch a request asks for into WC; -errno with EXTACK told why. */
static int parse(struct hvt_watch_cfg *wc, struct nlattr **tb,
		 const struct nlattr *nest, struct netlink_ext_ack *extack)
{
	u64 need, avail;
	int err;

	wc->exit_ns = get_u64(tb, HVTRACE_WATCH_EXIT_NS, 0);
	wc->exit_on = tb[HVTRACE_WATCH_EXIT_ON] ?
		      nla_get_u8(tb[HVTRACE_WATCH_EXIT_ON]) : HVTRACE_ON_TOTAL;
	wc->halt_triggers = tb[HVTRACE_WATCH_HALT_TRIGGERS] &&
			    nla_get_u8(tb[HVTRACE_WATCH_HALT_TRIGGERS]);
	wc->stall_ns = get_u64(tb, HVTRACE_WATCH_STALL_NS, 0);
	wc->stall_window_ns = get_u64(tb, HVTRACE_WATCH_STALL_WINDOW_NS, 0);
	wc->preempt_ns = get_u64(tb, HVTRACE_WATCH_PREEMPT_NS, 0);
	wc->irq_ns = get_u64(tb, HVTRACE_WATCH_IRQ_NS, 0);
	wc->history = get_u32(tb, HVTRACE_WATCH_HISTORY,
			      HVTRACE_WATCH_HISTORY_DEFAULT);
	wc->cap = hvt_watch_cap(wc->history);
	wc->post_ns = get_u64(tb, HVTRACE_WATCH_POST_NS,
			      HVTRACE_WATCH_POST_NS_DEFAULT);
	wc->rate = get_u32(tb, HVTRACE_WATCH_RATE, HVTRACE_WATCH_RATE_DEFAULT);
	wc->rate_total = get_u32(tb, HVTRACE_WATCH_RATE_TOTAL,
				 HVTRACE_WATCH_RATE_TOTAL_DEFAULT);
	wc->pid = get_u32(tb, HVTRACE_WATCH_FILTER_PID, 0);
	wc->mark_triggers = tb[HVTRACE_WATCH_MARK_TRIGGERS] &&
			    nla_get_u8(tb[HVTRACE_WATCH_MARK_TRIGGERS]);
	wc->mark_pid = get_u32(tb, HVTRACE_WATCH_MARK_PID, 0);
	if (tb[HVTRACE_WATCH_FILTER_VCPUS]) {
		err = hvt_nla_bitmap(wc->vcpus, HVT_NR_VCPU_IDS,
				     tb[HVTRACE_WATCH_FILTER_VCPUS],
				     HVT_NR_VCPU_IDS);
		if (err < 0) {
			NL_SET_ERR_MSG_ATTR(extack,
					    tb[HVTRACE_WATCH_FILTER_VCPUS],
					    "the vCPU bitmap is not whole u64 words");
			return err;
		}
		wc->vcpu_filter = err;
	}

	if (!!wc->stall_ns != !!wc->stall_window_ns) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a stall trigger needs both its time and its window");
		return -EINVAL;
	}
	if (wc->stall_ns > wc->stall_window_ns) {
		NL_SET_ERR_MSG_ATTR(extack, tb[HVTRACE_WATCH_STALL_NS],
				    "a stall's time out of the guest is longer than its window");
		return -EINVAL;
	}
	wc->stall_merge_ns = div_u64(wc->stall_window_ns, HVT_STALL_STEPS);
	wc->stall_limit_ns = wc->stall_ns ?: U64_MAX;
	wc->exit_quiet_ns = wc->exit_ns && wc->exit_on <= HVTRACE_ON_HANDLING ?
			    wc->exit_ns : U64_MAX;
	if (wc->mark_pid && !wc->mark_triggers) {
		NL_SET_ERR_MSG_ATTR(extack, tb[HVTRACE_WATCH_MARK_PID],
				    "a VMM whose marks trigger, but marks do not trigger");
		return -EINVAL;
	}
	if (!wc->exit_ns && !wc->stall_ns && !wc->preempt_ns &&
	    !wc->mark_triggers && !wc->irq_ns) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "no trigger: give an exit, stall, preemption or interrupt limit or guest marks");
		return -EINVAL;
	}
	if (wc->irq_ns && (~hvt_irq_probes() & (HVTRACE_IRQ_PROBE_RAISE |
						HVTRACE_IRQ_PROBE_INJECT))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[HVTRACE_WATCH_IRQ_NS],
				    "interrupt delivery is not timed on this host (KVM's kvm_apic_accept_irq or kvm_inj_virq not probed)");
		return -EOPNOTSUPP;
	}
	/* Every vCPU the table can hold, and the captures waiting (each at
	 * most a ring).
	 */
	need = (u64)hvt_watch_vcpu_bytes(wc->history) *
	       (hvt_max_vcpus + HVTRACE_WATCH_POOL + HVTRACE_WATCH_PENDING_MAX);
	avail = hvt_mem_available();
	if (need > avail / 2) {
		HVT_ERR_MSG_FMT(extack,
				"history %u x max_vcpus %u: %llu MiB > half of %llu MiB free",
				wc->history, hvt_max_vcpus, need >> 20,
				avail >> 20);
		/* The history is what to change (absent: its default). */
		extack->bad_attr = tb[HVTRACE_WATCH_HISTORY];
		return -ENOMEM;
	}
	return 0;
}

int hvt_cmd_watch_start(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[HVTRACE_WATCH_MAX + 1];
	const struct nlattr *nest = info->attrs[HVTRACE_A_WATCH];
	struct hvt_watch_cfg *wc;
	int err;

	if (!hvt_may_change(skb, info->extack))
		return -EPERM;
	if (!nest) {
		NL_SET_ERR_MSG_MOD(info->extack, "no watch settings (HVTRACE_A_WATCH)");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, HVTRACE_WATCH_MAX, nest, hvt_watch_policy,
			       info->extack);
	if (err)
		return err;
	wc = kzalloc(sizeof(*wc), GFP_KERNEL);
	if (!wc)
		return -ENOMEM;
	err = parse(wc, tb, nest, info->extack);
	if (err) {
		kfree(wc);
		return err;
	}
	err = hvt_watch_arm(wc, info->snd_portid);
	if (err == -EBUSY)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "another socket's watch is armed (an hvctl watch?)");
	return err;
}

int hvt_cmd_watch_stop(struct sk_buff *skb, struct genl_info *info)
{
	if (!hvt_may_change(skb, info->extack))
		return -EPERM;
	hvt_watch_disarm();
	return 0;
}

static int put_u64(struct sk_buff *msg, int attr, u64 v)
{
	return nla_put_u64_64bit(msg, attr, v, HVTRACE_WATCH_PAD);
}

static int put_settings(struct sk_buff *msg, const struct hvt_watch_cfg *wc)
{
	if ((wc->exit_ns &&
	     (put_u64(msg, HVTRACE_WATCH_EXIT_NS, wc->exit_ns) ||
	      nla_put_u8(msg, HVTRACE_WATCH_EXIT_ON, wc->exit_on) ||
	      nla_put_u8(msg, HVTRACE_WATCH_HALT_TRIGGERS,
			 wc->halt_triggers))) ||
	    (wc->stall_ns &&
	     (put_u64(msg, HVTRACE_WATCH_STALL_NS, wc->stall_ns) ||
	      put_u64(msg, HVTRACE_WATCH_STALL_WINDOW_NS,
		      wc->stall_window_ns))) ||
	    (wc->preempt_ns &&
	     put_u64(msg, HVTRACE_WATCH_PREEMPT_NS, wc->preempt_ns)) ||
	    (wc->irq_ns && put_u64(msg, HVTRACE_WATCH_IRQ_NS, wc->irq_ns)) ||
	    nla_put_u32(msg, HVTRACE_WATCH_HISTORY, wc->history) ||
	    put_u64(msg, HVTRACE_WATCH_POST_NS, wc->post_ns) ||
	    nla_put_u32(msg, HVTRACE_WATCH_RATE, wc->rate) ||
	    nla_put_u32(msg, HVTRACE_WATCH_RATE_TOTAL, wc->rate_total) ||
	    nla_put_u32(msg, HVTRACE_WATCH_FILTER_PID, wc->pid) ||
	    (wc->mark_triggers &&
	     (nla_put_u8(msg, HVTRACE_WATCH_MARK_TRIGGERS, 1) ||
	      nla_put_u32(msg, HVTRACE_WATCH_MARK_PID, wc->mark_pid))))
		return -EMSGSIZE;
	if (wc->vcpu_filter) {
		struct nlattr *a;

		a = nla_reserve(msg, HVTRACE_WATCH_FILTER_VCPUS,
				HVT_NR_VCPU_IDS / 8);
		if (!a)
			return -EMSGSIZE;
		bitmap_to_arr64(nla_data(a), wc->vcpus, HVT_NR_VCPU_IDS);
	}
	return 0;
}

int hvt_watch_put_status(struct sk_buff *msg)
{
	struct hvt_watch_counts n;
	struct hvt_watch_cfg *wc;
	struct nlattr *nest;
	int err = -EMSGSIZE;

	wc = kmalloc(sizeof(*wc), GFP_KERNEL);
	if (!wc)
		return -ENOMEM;
	hvt_watch_status(wc, &n);
	nest = nla_nest_start(msg, HVTRACE_A_WATCH);
	if (!nest)
		goto out;
	if ((n.armed && put_settings(msg, wc)) ||
	    nla_put_u8(msg, HVTRACE_WATCH_ARMED, n.armed) ||
	    nla_put_u32(msg, HVTRACE_WATCH_VCPUS, n.vcpus) ||
	    put_u64(msg, HVTRACE_WATCH_MEM_BYTES, n.mem_bytes) ||
	    put_u64(msg, HVTRACE_WATCH_VCPU_BYTES, n.vcpu_bytes) ||
	    put_u64(msg, HVTRACE_WATCH_CAPTURES, n.captures) ||
	    nla_put_u32(msg, HVTRACE_WATCH_PENDING, n.pending) ||
	    put_u64(msg, HVTRACE_WATCH_DROPPED, n.dropped) ||
	    put_u64(msg, HVTRACE_WATCH_SUPPRESSED_BUSY,
		    n.suppressed[HVT_SUPPRESSED_BUSY]) ||
	    put_u64(msg, HVTRACE_WATCH_SUPPRESSED_RATE,
		    n.suppressed[HVT_SUPPRESSED_RATE]) ||
	    put_u64(msg, HVTRACE_WATCH_SUPPRESSED_TOTAL,
		    n.suppressed[HVT_SUPPRESSED_TOTAL]) ||
	    put_u64(msg, HVTRACE_WATCH_NO_HISTORY, n.no_history)) {
		nla_nest_cancel(msg, nest);
		goto out;
	}
	nla_nest_end(msg, nest);
	err = 0;
out:
	kfree(wc);
	return err;
}

/* ---- handing captures over ------------------------------------------- */

struct captures_dump {
	struct hvt_capture *c;	/* being sent, off the pending list */
	u32 next;		/* its next record to send */
	bool head_sent;
};

int hvt_captures_start(struct netlink_callback *cb)
{
	struct captures_dump *d = (void *)cb->ctx;

	BUILD_BUG_ON(sizeof(*d) > sizeof(cb->ctx));
	memset(d, 0, sizeof(*d));
	if (!hvt_may_change(cb->skb, cb->extack))
		return -EPERM;
	if (!hvt_watch_owned_by(NETLINK_CB(cb->skb).portid)) {
		NL_SET_ERR_MSG_MOD(cb->extack,
				   "the captures are the socket's that armed the watch");
		return -EPERM;
	}
	return 0;
}

int hvt_captures_done(struct netlink_callback *cb)
{
	struct captures_dump *d = (void *)cb->ctx;

	/* The reader went before it had all of it: gone, counted. */
	if (d->c)
		hvt_capture_free(d->c, false);
	d->c = NULL;
	return 0;
}

static int put_u64_c(struct sk_buff *skb, int attr, u64 v)
{
	return nla_put_u64_64bit(skb, attr, v, HVTRACE_CAPTURE_PAD);
}

static int put_capture(struct sk_buff *skb, const struct hvt_capture *c)
{
	struct nlattr *nest = nla_nest_start(skb, HVTRACE_A_CAPTURE);

	if (!nest ||
	    put_u64_c(skb, HVTRACE_CAPTURE_ID, c->id) ||
	    nla_put_u32(skb, HVTRACE_CAPTURE_VM_ID, c->vm_id) ||
	    nla_put_u32(skb, HVTRACE_CAPTURE_VM_PID, c->vm_pid) ||
	    nla_put_u32(skb, HVTRACE_CAPTURE_VCPU_ID, c->vcpu_id) ||
	    nla_put_u32(skb, HVTRACE_CAPTURE_TID, c->tid) ||
	    nla_put_u8(skb, HVTRACE_CAPTURE_TRIGGER, c->trigger) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_TRIGGER_TS, c->trigger_ts) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_VALUE_NS, c->value_ns) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_LIMIT_NS, c->limit_ns) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_WINDOW_NS, c->window_ns) ||
	    nla_put_u8(skb, HVTRACE_CAPTURE_ON, c->on) ||
	    (c->trigger == HVTRACE_TRIGGER_IRQ &&
	     nla_put_u8(skb, HVTRACE_CAPTURE_IRQ_VECTOR, c->vector)) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_FIRST_SEQ, c->first_seq) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_TRIGGER_SEQ, c->trigger_seq) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_END_SEQ, c->end_seq) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_SUPPRESSED, c->suppressed) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_CLOCK_NS, c->clock_ns) ||
	    put_u64_c(skb, HVTRACE_CAPTURE_REALTIME_NS, c->realtime_ns))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Records of D's capture from d->next into one message; 0: no room. */
static int put_records(struct sk_buff *skb, struct captures_dump *d)
{
	const size_t ev = sizeof(struct hvtrace_event);
	const struct hvt_capture *c = d->c;
	unsigned int room;
	u32 n;

	if (nla_put_u64_64bit(skb, HVTRACE_A_CAPTURE_ID, c->id, HVTRACE_A_PAD))
		return 0;
	room = skb_tailroom(skb);
	if (room < nla_total_size(ev))
		return 0;
	room = (room - nla_total_size(0)) / ev;
	n = min_t(u32, room, c->nr - d->next);
	if (nla_put(skb, HVTRACE_A_EVENTS, n * ev, &c->ev[d->next]))
		return 0;
	d->next += n;
	return n;
}

int hvt_captures_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct captures_dump *d = (void *)cb->ctx;
	void *hdr;

	for (;;) {
		if (!d->c) {
			d->c = hvt_capture_take();
			if (!d->c)
				return skb->len;	/* 0 when nothing was put */
			d->next = 0;
			d->head_sent = false;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hvt_family, NLM_F_MULTI,
				  HVTRACE_CMD_READ_CAPTURES);
		if (!hdr)
			return skb->len;
		if (!d->head_sent) {
			if (put_capture(skb, d->c))
				goto full;
			d->head_sent = true;
		} else if (!put_records(skb, d)) {
			goto full;
		}
		genlmsg_end(skb, hdr);
		if (d->head_sent && d->next == d->c->nr) {
			hvt_capture_free(d->c, true);
			d->c = NULL;
		}
		continue;
full:
		genlmsg_cancel(skb, hdr);
		return skb->len;
	}
}
