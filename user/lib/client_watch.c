// SPDX-License-Identifier: GPL-2.0
/*
 * The watch: WATCH_START and WATCH_STOP, the WATCH nest of GET_STATUS,
 * and READ_CAPTURES, whose dump hands over each closed capture as a
 * header message followed by messages of its records:
 *
 *   CAPTURE{id 7, vm, vcpu, trigger, seqs}   one capture's header
 *   CAPTURE_ID 7, EVENTS[...]                its records, in order
 *   CAPTURE_ID 7, EVENTS[...]
 *   CAPTURE{id 8, ...}                       the next one
 *   ...
 *
 * A capture is complete when the next header or the dump's end comes:
 * only then is it handed to the caller, so one capture is held at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "util.h"

int hvc_watch_vcpus(struct hvc_watch *w, const char *s)
{
	return hvc_parse_id_list(s, w->vcpus, &w->nr_vcpu_words,
				 HVTRACE_MAX_VCPU_ID + 1, "vcpu");
}

static void put_watch(struct nlmsghdr *nlh, const struct hvc_watch *w)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, HVTRACE_A_WATCH);

	if (w->exit_ns) {
		mnl_attr_put_u64(nlh, HVTRACE_WATCH_EXIT_NS, w->exit_ns);
		mnl_attr_put_u8(nlh, HVTRACE_WATCH_EXIT_ON, w->exit_on);
		mnl_attr_put_u8(nlh, HVTRACE_WATCH_HALT_TRIGGERS,
				w->halt_triggers);
	}
	if (w->stall_ns || w->stall_window_ns) {
		mnl_attr_put_u64(nlh, HVTRACE_WATCH_STALL_NS, w->stall_ns);
		mnl_attr_put_u64(nlh, HVTRACE_WATCH_STALL_WINDOW_NS,
				 w->stall_window_ns);
	}
	if (w->preempt_ns)
		mnl_attr_put_u64(nlh, HVTRACE_WATCH_PREEMPT_NS, w->preempt_ns);
	if (w->irq_ns)
		mnl_attr_put_u64(nlh, HVTRACE_WATCH_IRQ_NS, w->irq_ns);
	if (w->history)
		mnl_attr_put_u32(nlh, HVTRACE_WATCH_HISTORY, w->history);
	if (w->has_post)
		mnl_attr_put_u64(nlh, HVTRACE_WATCH_POST_NS, w->post_ns);
	if (w->rate)
		mnl_attr_put_u32(nlh, HVTRACE_WATCH_RATE, w->rate);
	if (w->rate_total)
		mnl_attr_put_u32(nlh, HVTRACE_WATCH_RATE_TOTAL, w->rate_total);
	if (w->pid)
		mnl_attr_put_u32(nlh, HVTRACE_WATCH_FILTER_PID, w->pid);
	if (w->nr_vcpu_words)
		mnl_attr_put(nlh, HVTRACE_WATCH_FILTER_VCPUS,
			     w->nr_vcpu_words * sizeof(uint64_t), w->vcpus);
	if (w->mark_triggers)
		mnl_attr_put_u8(nlh, HVTRACE_WATCH_MARK_TRIGGERS, 1);
	if (w->mark_triggers && w->mark_pid)
		mnl_attr_put_u32(nlh, HVTRACE_WATCH_MARK_PID, w->mark_pid);
	mnl_attr_nest_end(nlh, nest);
}

int hvc_watch_start(struct hvc *c, const struct hvc_watch *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hvnl_ack ack = { 0 };
	const char *what = NULL;
	struct nlmsghdr *nlh;
	unsigned int nth;
	uint16_t bad;
	int ret;

	nlh = hvnl_request(c->nl, buf, HVTRACE_CMD_WATCH_START, 0);
	put_watch(nlh, w);
	ret = hvnl_talk(c->nl, nlh, NULL, NULL, &ack);
	if (ack.err) {
		bad = ack.has_off ? hvc_attr_at(nlh, HVTRACE_A_WATCH, ack.off,
						 &nth) : 0;
		if (bad && bad < ARRAY_SIZE(w->typed))
			what = w->typed[bad];
		if (ack.err == EBUSY && !*ack.msg)
			snprintf(ack.msg, sizeof(ack.msg), "another hvctl watch "
				 "has the watch armed");
		ret = hvnl_report_ack(&ack, HVTRACE_CMD_WATCH_START, what);
	}
	return ret;
}

int hvc_watch_stop(struct hvc *c)
{
	return hvc_request(c, HVTRACE_CMD_WATCH_STOP, 0, NULL, NULL);
}

int hvc_watch_status_parse(const struct nlattr *nest,
			   struct hvc_watch_status *w)
{
	const struct nlattr *tb[HVTRACE_WATCH_MAX + 1];
	const struct nlattr *v;
	int ret;

	memset(w, 0, sizeof(*w));
	ret = hvnl_parse_nested(nest, tb, HVTRACE_WATCH_MAX, hvc_policy_watch);
	if (ret)
		return ret;
	w->known = true;
	w->armed = hvnl_u8(tb[HVTRACE_WATCH_ARMED]);
	w->set.exit_ns = hvnl_u64(tb[HVTRACE_WATCH_EXIT_NS]);
	w->set.exit_on = hvnl_u8(tb[HVTRACE_WATCH_EXIT_ON]);
	w->set.halt_triggers = hvnl_u8(tb[HVTRACE_WATCH_HALT_TRIGGERS]);
	w->set.stall_ns = hvnl_u64(tb[HVTRACE_WATCH_STALL_NS]);
	w->set.stall_window_ns = hvnl_u64(tb[HVTRACE_WATCH_STALL_WINDOW_NS]);
	w->set.preempt_ns = hvnl_u64(tb[HVTRACE_WATCH_PREEMPT_NS]);
	w->set.irq_ns = hvnl_u64(tb[HVTRACE_WATCH_IRQ_NS]);
	w->set.history = hvnl_u32(tb[HVTRACE_WATCH_HISTORY]);
	w->set.post_ns = hvnl_u64(tb[HVTRACE_WATCH_POST_NS]);
	w->set.has_post = tb[HVTRACE_WATCH_POST_NS];
	w->set.rate = hvnl_u32(tb[HVTRACE_WATCH_RATE]);
	w->set.rate_total = hvnl_u32(tb[HVTRACE_WATCH_RATE_TOTAL]);
	w->set.pid = hvnl_u32(tb[HVTRACE_WATCH_FILTER_PID]);
	v = tb[HVTRACE_WATCH_FILTER_VCPUS];
	if (v) {
		unsigned int n = mnl_attr_get_payload_len(v) / sizeof(uint64_t);
		unsigned int max = sizeof(w->set.vcpus) / sizeof(uint64_t);

		memcpy(w->set.vcpus, mnl_attr_get_payload(v),
		       (n < max ? n : max) * sizeof(uint64_t));
		for (unsigned int i = 0; i < n && i < max; i++)
			if (w->set.vcpus[i])
				w->set.nr_vcpu_words = i + 1;
	}
	w->set.mark_triggers = hvnl_u8(tb[HVTRACE_WATCH_MARK_TRIGGERS]);
	w->set.mark_pid = hvnl_u32(tb[HVTRACE_WATCH_MARK_PID]);
	w->vcpus = hvnl_u32(tb[HVTRACE_WATCH_VCPUS]);
	w->mem_bytes = hvnl_u64(tb[HVTRACE_WATCH_MEM_BYTES]);
	w->captures = hvnl_u64(tb[HVTRACE_WATCH_CAPTURES]);
	w->pending = hvnl_u32(tb[HVTRACE_WATCH_PENDING]);
	w->dropped = hvnl_u64(tb[HVTRACE_WATCH_DROPPED]);
	w->suppressed_busy = hvnl_u64(tb[HVTRACE_WATCH_SUPPRESSED_BUSY]);
	w->suppressed_rate = hvnl_u64(tb[HVTRACE_WATCH_SUPPRESSED_RATE]);
	w->suppressed_total = hvnl_u64(tb[HVTRACE_WATCH_SUPPRESSED_TOTAL]);
	w->no_history = hvnl_u64(tb[HVTRACE_WATCH_NO_HISTORY]);
	w->vcpu_bytes = hvnl_u64(tb[HVTRACE_WATCH_VCPU_BYTES]);
	return 0;
}

/* READ_CAPTURES on its way: the capture being collected. */
struct captures_ctx {
	hvc_capture_cb cb;
	void *data;
	struct hvc_capture cap;
	bool open;		/* cap holds a header */
	unsigned int room;	/* events allocated */
	int err;		/* the first of cb */
	unsigned int lost;	/* handed over after it, not passed to cb */
};

/* The capture collected so far is complete: to the caller, then gone. */
static void capture_done(struct captures_ctx *x)
{
	if (x->open && !x->err)
		x->err = x->cb(&x->cap, x->data);
	else if (x->open)
		x->lost++;	/* the module handed it over: it is gone */
	free(x->cap.events);
	memset(&x->cap, 0, sizeof(x->cap));
	x->room = 0;
	x->open = false;
}

static int capture_header(struct captures_ctx *x, const struct nlattr *nest)
{
	const struct nlattr *tb[HVTRACE_CAPTURE_MAX + 1];
	struct hvc_capture *c = &x->cap;
	int ret;

	capture_done(x);
	ret = hvnl_parse_nested(nest, tb, HVTRACE_CAPTURE_MAX,
				hvc_policy_capture);
	if (ret)
		return ret;
	if (!tb[HVTRACE_CAPTURE_ID])
		return hvc_err(EPROTO, "the module's capture has no id");
	c->id = hvnl_u64(tb[HVTRACE_CAPTURE_ID]);
	c->vm_id = hvnl_u32(tb[HVTRACE_CAPTURE_VM_ID]);
	c->vm_pid = hvnl_u32(tb[HVTRACE_CAPTURE_VM_PID]);
	c->vcpu_id = hvnl_u32(tb[HVTRACE_CAPTURE_VCPU_ID]);
	c->tid = hvnl_u32(tb[HVTRACE_CAPTURE_TID]);
	c->trigger = hvnl_u8(tb[HVTRACE_CAPTURE_TRIGGER]);
	c->trigger_ts = hvnl_u64(tb[HVTRACE_CAPTURE_TRIGGER_TS]);
	c->value_ns = hvnl_u64(tb[HVTRACE_CAPTURE_VALUE_NS]);
	c->limit_ns = hvnl_u64(tb[HVTRACE_CAPTURE_LIMIT_NS]);
	c->window_ns = hvnl_u64(tb[HVTRACE_CAPTURE_WINDOW_NS]);
	c->on = hvnl_u8(tb[HVTRACE_CAPTURE_ON]);
	c->irq_vector = hvnl_u8(tb[HVTRACE_CAPTURE_IRQ_VECTOR]);
	c->first_seq = hvnl_u64(tb[HVTRACE_CAPTURE_FIRST_SEQ]);
	c->trigger_seq = hvnl_u64(tb[HVTRACE_CAPTURE_TRIGGER_SEQ]);
	c->end_seq = hvnl_u64(tb[HVTRACE_CAPTURE_END_SEQ]);
	c->suppressed = hvnl_u64(tb[HVTRACE_CAPTURE_SUPPRESSED]);
	c->clock_ns = hvnl_u64(tb[HVTRACE_CAPTURE_CLOCK_NS]);
	c->realtime_ns = hvnl_u64(tb[HVTRACE_CAPTURE_REALTIME_NS]);
	x->open = true;
	return 0;
}

static int capture_events(struct captures_ctx *x, uint64_t id,
			  const struct nlattr *a)
{
	const struct hvtrace_event *ev = mnl_attr_get_payload(a);
	size_t n = mnl_attr_get_payload_len(a) / sizeof(*ev);
	struct hvc_capture *c = &x->cap;

	if (!x->open || id != c->id)
		return hvc_err(EPROTO, "the module sent records of capture %llu "
			       "without its header", (unsigned long long)id);
	if (c->nr_events + n > x->room) {
		unsigned int room = x->room ? x->room : 256;
		void *p;

		while (room < c->nr_events + n)
			room *= 2;
		p = realloc(c->events, room * sizeof(*ev));
		if (!p)
			return hvc_err(ENOMEM, "out of memory");
		c->events = p;
		x->room = room;
	}
	memcpy(c->events + c->nr_events, ev, n * sizeof(*ev));
	c->nr_events += n;
	return 0;
}

static int captures_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	struct captures_ctx *x = data;
	int ret;

	ret = hvnl_parse(nlh, tb, HVTRACE_A_MAX, hvc_policy_attr);
	if (ret)
		return ret;
	if (tb[HVTRACE_A_CAPTURE]) {
		ret = capture_header(x, tb[HVTRACE_A_CAPTURE]);
		if (ret)
			return ret;
	}
	if (tb[HVTRACE_A_EVENTS])
		return capture_events(x, hvnl_u64(tb[HVTRACE_A_CAPTURE_ID]),
				      tb[HVTRACE_A_EVENTS]);
	return 0;
}

int hvc_captures_read(struct hvc *c, hvc_capture_cb cb, void *data)
{
	struct captures_ctx x = { .cb = cb, .data = data };
	int ret;

	ret = hvc_request(c, HVTRACE_CMD_READ_CAPTURES, NLM_F_DUMP,
			  captures_cb, &x);
	/* A dump cut short holds no complete last capture. */
	if (ret)
		x.open = false;
	capture_done(&x);
	if (x.lost)
		hvc_err(ECANCELED, "%u more captures the module handed over "
			"after that were lost", x.lost);
	return ret ? ret : x.err;
}

unsigned int hvc_notifications(struct hvc *c)
{
	uint32_t seen = hvnl_pending(c->nl);
	unsigned int notes = 0;

	if (seen & (1U << HVTRACE_CMD_WATERMARK))
		notes |= HVC_NOTE_WATERMARK;
	if (seen & (1U << HVTRACE_CMD_CAPTURE))
		notes |= HVC_NOTE_CAPTURE;
	return notes;
}
