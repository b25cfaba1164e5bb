// SPDX-License-Identifier: GPL-2.0
/*
 * The watch in process context: arming and disarming, and the scan, a
 * work item that does what the probes may not (watch.h draws the
 * states):
 *
 *  - a live, watched vCPU without a watch gets one (the probe that met
 *    it asked once, or the arm itself scans);
 *  - a capture whose post window a probe closed, or is over by the clock,
 *    or whose vCPU is gone, is copied out of the vCPU's rings to the
 *    pending captures (the "events" group hears of it), and the frozen
 *    ring is the vCPU's spare again;
 *  - the watch of a vCPU that is gone is freed after a grace period.
 *
 * The scan runs again when the next post window ends. The watch belongs
 * to the netlink socket that armed it: closing that socket disarms it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "genl.h"
#include "record.h"
#include "stats.h"
#include "vcpu_table.h"
#include "watch.h"
#include "watch_scan.h"

struct hvt_watch_cfg __rcu *hvt_watch_cfg;

/* Arming and disarming; outside scan_mutex. */
static DEFINE_MUTEX(ctl_mutex);
/* The scan, v->watch, the pending list and the counters below. */
static DEFINE_MUTEX(scan_mutex);

static u32 owner;		/* netlink port of the armed watch */
static LIST_HEAD(pending);
static u32 nr_pending;
static u32 nr_watches;
static u64 captures, dropped, no_history, last_id;
static atomic64_t bytes = ATOMIC64_INIT(0);

/*
 * Watches ready for new vCPUs: a vCPU's first exit takes one (watch.c),
 * the scan refills them.
 */
static struct hvt_watch_vcpu *pool[HVTRACE_WATCH_POOL];

static void scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(scan_work, scan_fn);

/*
 * Unbound: queued from the probes, a per-CPU work item would preempt the
 * very vCPU thread whose capture it copies (and show up in its post
 * window); the scheduler finds the scan a CPU with room instead.
 */
static void kick_fn(struct irq_work *work)
{
	mod_delayed_work(system_unbound_wq, &scan_work, 0);
}

static struct irq_work kick_work = IRQ_WORK_INIT(kick_fn);

void hvt_watch_kick(void)
{
	irq_work_queue(&kick_work);
}

void hvt_watch_vcpu_gone(struct hvt_vcpu *v)
{
	if (READ_ONCE(v->watch))
		hvt_watch_kick();
}

u32 hvt_watch_cap(u32 history)
{
	/* The history, the trigger's, then up to HISTORY post records. */
	return 2 * history + 1;
}

static size_t ring_size(u32 cap)
{
	struct hvt_watch_ring *r;

	return struct_size(r, ev, cap);
}

static size_t capture_size(u32 nr)
{
	struct hvt_capture *c;

	return struct_size(c, ev, nr);
}

size_t hvt_watch_vcpu_bytes(u32 history)
{
	return PAGE_ALIGN(sizeof(struct hvt_watch_vcpu)) +
	       2 * PAGE_ALIGN(ring_size(hvt_watch_cap(history)));
}

bool hvt_watched(const struct hvt_watch_cfg *wc, const struct hvt_vcpu *v)
{
	if (wc->pid && v->vm_pid != wc->pid)
		return false;
	if (wc->vcpu_filter && (v->vcpu_id >= HVT_NR_VCPU_IDS ||
				!test_bit(v->vcpu_id, wc->vcpus)))
		return false;
	return true;
}

/* SIZE bytes from hvt_vmem, counted; NULL when memory is short. */
static void *mem_get(size_t size)
{
	struct hvt_vmem mem;

	if (hvt_vmem_alloc(&mem, size, NUMA_NO_NODE))
		return NULL;
	atomic64_add(mem.nr_pages << PAGE_SHIFT, &bytes);
	/* Each object starts with its struct hvt_vmem. */
	memcpy(mem.addr, &mem, sizeof(mem));
	return mem.addr;
}

static void mem_put(void *obj)
{
	struct hvt_vmem mem;

	if (!obj)
		return;
	memcpy(&mem, obj, sizeof(mem));
	atomic64_sub(mem.nr_pages << PAGE_SHIFT, &bytes);
	hvt_vmem_free(&mem);
}

static void watch_free(struct hvt_watch_vcpu *w)
{
	mem_put(w->active);
	mem_put(w->spare);
	mem_put(w->frozen);
	mem_put(w);
	nr_watches--;
}

static struct hvt_watch_ring *ring_new(u32 cap)
{
	struct hvt_watch_ring *r = mem_get(ring_size(cap));

	if (r)
		r->cap = cap;
	return r;
}

/* A new watch, for the vCPU of life LIFE, or NULL (counted): no memory. */
static struct hvt_watch_vcpu *watch_new(const struct hvt_watch_cfg *wc,
					u32 life)
{
	struct hvt_watch_vcpu *w;

	BUILD_BUG_ON(offsetof(struct hvt_watch_vcpu, mem) ||
		     offsetof(struct hvt_watch_ring, mem) ||
		     offsetof(struct hvt_capture, mem));
	w = mem_get(sizeof(*w));
	if (!w) {
		no_history++;
		return NULL;
	}
	nr_watches++;
	w->active = ring_new(wc->cap);
	w->spare = ring_new(wc->cap);
	if (!w->active || !w->spare) {
		watch_free(w);
		no_history++;
		return NULL;
	}
	atomic_set(&w->state, HVT_W_ARMED);
	w->life = life;
	w->active->base = 1;
	INIT_LIST_HEAD(&w->node);
	return w;
}

struct hvt_watch_vcpu *hvt_watch_pool_take(void)
{
	struct hvt_watch_vcpu *w;
	unsigned int i;

	for (i = 0; i < HVTRACE_WATCH_POOL; i++) {
		w = xchg(&pool[i], NULL);
		if (w)
			return w;
	}
	return NULL;
}

static unsigned int pool_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < HVTRACE_WATCH_POOL; i++)
		n += !!READ_ONCE(pool[i]);
	return n;
}

/* Taken from the pool but not used: the scan puts them back. */
static LLIST_HEAD(returned);

void hvt_watch_pool_put(struct hvt_watch_vcpu *w)
{
	llist_add(&w->returned, &returned);
}

/* Live V has no watch: one for it, unless its probe took one meanwhile. */
static void give(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v)
{
	struct hvt_watch_vcpu *w = watch_new(wc, READ_ONCE(v->life));

	/* cmpxchg: probes see it whole, or not at all. */
	if (w && cmpxchg(&v->watch, NULL, w))
		watch_free(w);
}

/* The pool full again (process context, scan_mutex held). */
static void pool_fill(const struct hvt_watch_cfg *wc)
{
	struct llist_node *back = llist_del_all(&returned);
	struct hvt_watch_vcpu *w, *t;
	unsigned int i;

	/* _safe: once in the pool, a probe may take it and return it again. */
	llist_for_each_entry_safe(w, t, back, returned) {
		for (i = 0; i < HVTRACE_WATCH_POOL; i++)
			if (!cmpxchg(&pool[i], NULL, w))
				break;
		if (i == HVTRACE_WATCH_POOL)
			watch_free(w);
	}
	for (i = 0; i < HVTRACE_WATCH_POOL; i++) {
		if (READ_ONCE(pool[i]))
			continue;
		w = watch_new(wc, 0);
		if (!w)
			return;
		if (cmpxchg(&pool[i], NULL, w))
			watch_free(w);
	}
}

/* Ring R's record SEQ (the frozen ring's post records wrap with it). */
static const struct hvtrace_event *ring_at(const struct hvt_watch_ring *r,
					   u64 seq)
{
	return &r->ev[(seq - r->base) % r->cap];
}

/*
 * EV, W's record SEQ, as readers see it: with what the history leaves to
 * the copy-out (hvt_event_fill()) done.
 */
static void history_expand(struct hvtrace_event *ev,
			   const struct hvt_watch_vcpu *w, u64 seq)
{
	ev->seq = seq;
	ev->vcpu_id = w->vcpu_id;
	ev->vm_id = w->vm_id;
	ev->vm_pid = w->vm_pid;
	if (ev->flags & HVT_VCPU_BRIEF) {
		/* Its exit came before details were wanted: not read. */
		ev->info1 = 0;
		ev->info2 = 0;
		ev->intr_info = 0;
		ev->error_code = 0;
	}
	if (ev->flags & HVT_EVF_QUIET) {
		ev->preempt_pid = 0;
		ev->preempt_ns = 0;
		memset(ev->preempt_comm, 0, sizeof(ev->preempt_comm));
		memset(ev->part_ns, 0, sizeof(ev->part_ns));
	}
	ev->flags &= __HVTRACE_EVF_ALL;
}

/*
 * W's capture, copied out of its frozen ring (nothing writes it now): the
 * records up to the trigger's and the post window's. NULL when memory is
 * short (dropped).
 */
static struct hvt_capture *capture_copy(const struct hvt_watch_cfg *wc,
					struct hvt_watch_vcpu *w)
{
	const struct hvt_watch_ring *f = w->frozen;
	u64 t = w->trigger_seq, s, from;
	struct hvt_capture *c;
	u32 i = 0;

	from = max3(f->base, t >= f->cap ? t - f->cap + 1 : 1,
		    t > wc->history ? t - wc->history : 1);
	c = mem_get(capture_size(w->post_last + 1 - from));
	if (!c) {
		dropped++;
		return NULL;
	}
	for (s = from; s <= w->post_last; s++) {
		c->ev[i] = *ring_at(f, s);
		history_expand(&c->ev[i++], w, s);
	}
	c->nr = i;
	c->clock_ns = hvt_clock();
	c->realtime_ns = ktime_get_real_ns();
	c->first_seq = from;
	c->trigger_seq = t;
	c->end_seq = w->post_last + 1;
	c->trigger = w->trigger;
	c->on = w->on;
	c->vector = w->vector;
	c->trigger_ts = w->trigger_ts;
	c->value_ns = w->value_ns;
	c->limit_ns = w->limit_ns;
	c->window_ns = w->window_ns;
	c->suppressed = w->suppressed;
	c->vm_id = w->vm_id;
	c->vm_pid = w->vm_pid;
	c->vcpu_id = w->vcpu_id;
	c->tid = w->tid;
	return c;
}

/* C joins the pending captures; the oldest goes if too many wait. */
static void capture_add(struct hvt_capture *c)
{
	c->id = ++last_id;
	captures++;
	if (nr_pending == HVTRACE_WATCH_PENDING_MAX) {
		struct hvt_capture *old;

		old = list_first_entry(&pending, struct hvt_capture, node);
		list_del(&old->node);
		mem_put(old);
		nr_pending--;
		dropped++;
	}
	list_add_tail(&c->node, &pending);
	nr_pending++;
}

static void scan(void)
{
	const struct hvt_watch_cfg *wc;
	struct hvt_watch_vcpu *w, *t;
	struct hvt_capture *c;
	unsigned int i, n = hvt_vcpu_slots();
	LIST_HEAD(closed);
	LIST_HEAD(gone);
	bool sync = false, news = false;
	u64 now, next = U64_MAX;

	mutex_lock(&scan_mutex);
	/* Disarming waits for the scan before it frees the settings. */
	wc = rcu_dereference_protected(hvt_watch_cfg, true);
	if (!wc)
		goto out;
	now = hvt_clock();
	for (i = 0; i < n; i++) {
		struct hvt_vcpu *v = hvt_vcpu_slot(i);
		bool watched = hvt_vcpu_live(v) && hvt_watched(wc, v), live;
		int state;

		w = READ_ONCE(v->watch);
		if (!w) {
			if (watched)
				give(wc, v);
			continue;
		}
		/* A watch of a vCPU that held the slot before is not its. */
		live = watched && w->life == READ_ONCE(v->life);
		state = atomic_read_acquire(&w->state);
		if (state == HVT_W_POST) {
			if (live && now < w->post_end) {
				next = min(next, w->post_end);
				continue;
			}
			/* The window is over and no record came to say so. */
			if (atomic_cmpxchg(&w->state, HVT_W_POST,
					   HVT_W_CLOSED) == HVT_W_POST)
				sync = true;
			state = HVT_W_CLOSED;
		}
		if (live) {
			if (state == HVT_W_CLOSED)
				list_add_tail(&w->node, &closed);
			continue;
		}
		/* Gone: no probe may find it once a grace period passed. */
		WRITE_ONCE(v->watch, NULL);
		list_add_tail(&w->node, &gone);
		sync = true;
		if (watched)
			give(wc, v);
	}
	/* The probes that closed a window, or held a watch, are done. */
	if (sync)
		synchronize_rcu();
	list_for_each_entry_safe(w, t, &closed, node) {
		list_del_init(&w->node);
		c = capture_copy(wc, w);
		if (c) {
			capture_add(c);
			news = true;
		}
		w->spare = w->frozen;
		w->frozen = NULL;
		atomic_set_release(&w->state, HVT_W_ARMED);
	}
	list_for_each_entry_safe(w, t, &gone, node) {
		list_del(&w->node);
		if (atomic_read(&w->state) == HVT_W_CLOSED) {
			c = capture_copy(wc, w);
			if (c) {
				capture_add(c);
				news = true;
			}
		}
		watch_free(w);
	}
	pool_fill(wc);
	if (news)
		hvt_genl_notify_capture();
	if (next != U64_MAX)
		mod_delayed_work(system_unbound_wq, &scan_work,
				 nsecs_to_jiffies(next - now) + 1);
out:
	mutex_unlock(&scan_mutex);
}

static void scan_fn(struct work_struct *work)
{
	scan();
}

/* The pool and what came back to it, freed (no probe runs). */
static void pool_fill_none(void)
{
	struct llist_node *back = llist_del_all(&returned);
	struct hvt_watch_vcpu *w, *t;
	unsigned int i;

	llist_for_each_entry_safe(w, t, back, returned)
		watch_free(w);
	for (i = 0; i < HVTRACE_WATCH_POOL; i++) {
		if (pool[i])
			watch_free(pool[i]);
		pool[i] = NULL;
	}
}

/* No probe runs with a watch: free every one, and the pending captures. */
static void free_all(void)
{
	struct hvt_capture *c, *t;
	unsigned int i, n = hvt_vcpu_slots();

	mutex_lock(&scan_mutex);
	for (i = 0; i < n; i++) {
		struct hvt_vcpu *v = hvt_vcpu_slot(i);
		struct hvt_watch_vcpu *w = v->watch;

		if (w) {
			WRITE_ONCE(v->watch, NULL);
			watch_free(w);
		}
	}
	pool_fill_none();
	list_for_each_entry_safe(c, t, &pending, node) {
		list_del(&c->node);
		mem_put(c);
	}
	nr_pending = 0;
	nr_watches = 0;
	mutex_unlock(&scan_mutex);
}

static void disarm_locked(void)
{
	struct hvt_watch_cfg *wc;

	wc = rcu_dereference_protected(hvt_watch_cfg,
				       lockdep_is_held(&ctl_mutex));
	if (!wc)
		return;
	RCU_INIT_POINTER(hvt_watch_cfg, NULL);
	synchronize_rcu();	/* the probes run with preemption off */
	static_branch_dec(&hvt_details);
	irq_work_sync(&kick_work);
	cancel_delayed_work_sync(&scan_work);
	free_all();
	WRITE_ONCE(owner, 0);
	kfree(wc);
}

/* The counters start afresh; nothing is armed, so no probe writes them. */
static void counters_reset(void)
{
	unsigned int i, n = hvt_vcpu_slots();
	int cpu;

	for_each_cpu(cpu, &hvt_cpus_traced)
		memset(hvt_cpu(cpu)->watch_suppressed, 0,
		       sizeof(hvt_cpu(cpu)->watch_suppressed));
	for (i = 0; i < n; i++) {
		struct hvt_vcpu *v = hvt_vcpu_slot(i);

		v->watch_kicked = 0;
		v->watch_minute = 0;
		v->watch_count = 0;
		v->watch_suppressed = 0;
	}
	hvt_watch_rate_reset();
	captures = 0;
	dropped = 0;
	no_history = 0;
}

int hvt_watch_arm(struct hvt_watch_cfg *wc, u32 portid)
{
	mutex_lock(&ctl_mutex);
	if (owner && owner != portid) {
		mutex_unlock(&ctl_mutex);
		kfree(wc);
		return -EBUSY;
	}
	disarm_locked();
	counters_reset();
	WRITE_ONCE(owner, portid);
	static_branch_inc(&hvt_details);	/* before the probes see WC */
	rcu_assign_pointer(hvt_watch_cfg, wc);
	scan();		/* the live vCPUs get their watch now */
	mutex_unlock(&ctl_mutex);
	return 0;
}

bool hvt_watch_owned_by(u32 portid)
{
	return portid && READ_ONCE(owner) == portid;
}

void hvt_watch_disarm(void)
{
	mutex_lock(&ctl_mutex);
	disarm_locked();
	mutex_unlock(&ctl_mutex);
}

bool hvt_watch_status(struct hvt_watch_cfg *cfg, struct hvt_watch_counts *n)
{
	const struct hvt_watch_cfg *wc;
	int cpu, i;

	memset(n, 0, sizeof(*n));
	mutex_lock(&ctl_mutex);
	wc = rcu_dereference_protected(hvt_watch_cfg,
				       lockdep_is_held(&ctl_mutex));
	if (wc) {
		*cfg = *wc;
		n->armed = true;
	}
	mutex_lock(&scan_mutex);
	n->vcpus = nr_watches - pool_count();
	n->pending = nr_pending;
	n->captures = captures;
	n->dropped = dropped;
	n->no_history = no_history;
	mutex_unlock(&scan_mutex);
	n->mem_bytes = atomic64_read(&bytes);
	if (wc)
		n->vcpu_bytes = hvt_watch_vcpu_bytes(wc->history);
	for_each_cpu(cpu, &hvt_cpus_traced)
		for (i = 0; i < HVT_NR_SUPPRESSED; i++)
			n->suppressed[i] +=
				READ_ONCE(hvt_cpu(cpu)->watch_suppressed[i]);
	mutex_unlock(&ctl_mutex);
	return n->armed;
}

struct hvt_capture *hvt_capture_take(void)
{
	struct hvt_capture *c;

	mutex_lock(&scan_mutex);
	c = list_first_entry_or_null(&pending, struct hvt_capture, node);
	if (c) {
		list_del_init(&c->node);
		nr_pending--;
	}
	mutex_unlock(&scan_mutex);
	return c;
}

void hvt_capture_free(struct hvt_capture *c, bool read)
{
	if (!read) {
		mutex_lock(&scan_mutex);
		dropped++;
		mutex_unlock(&scan_mutex);
	}
	mem_put(c);
}

/* The owner's socket closed: its watch goes (in process context). */
static u32 released;

static void release_fn(struct work_struct *work)
{
	mutex_lock(&ctl_mutex);
	if (owner && owner == READ_ONCE(released))
		disarm_locked();
	mutex_unlock(&ctl_mutex);
}

static DECLARE_WORK(release_work, release_fn);

static int owner_release(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    n->portid && n->portid == READ_ONCE(owner)) {
		WRITE_ONCE(released, n->portid);
		schedule_work(&release_work);
	}
	return NOTIFY_DONE;
}

static struct notifier_block owner_nb = {
	.notifier_call = owner_release,
};

int hvt_watch_init(void)
{
	return netlink_register_notifier(&owner_nb);
}

/* After the probes are gone and before the family goes. */
void hvt_watch_exit_module(void)
{
	netlink_unregister_notifier(&owner_nb);
	flush_work(&release_work);
	hvt_watch_disarm();
	irq_work_sync(&kick_work);
	cancel_delayed_work_sync(&scan_work);
}
