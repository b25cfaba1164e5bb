// SPDX-License-Identifier: GPL-2.0
/*
 * The watch in process context: arming and disarming, and the scan, a
 * work item that does what the probes may not (watch.h draws the
 * states):
 *
 *  - a live, watched vCPU without a watch gets one (the probe that met
 *    it asked once, or the arm itself scans);
 *  - a capture whose post-trigger window is over, or whose post share of
 *    the history is full, or whose vCPU is gone, closes: CLOSING, a new
 *    watch for the vCPU, a grace period (no probe holds the old one),
 *    then the old one joins the pending captures and the "events" group
 *    hears of it;
 *  - the watch of a vCPU that is gone is freed after a grace period.
 *
 * The scan runs again when the next post window ends. The watch belongs
 * to the netlink socket that armed it: closing that socket disarms it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "genl.h"
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

static void scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(scan_work, scan_fn);

static void kick_fn(struct irq_work *work)
{
	mod_delayed_work(system_wq, &scan_work, 0);
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
	/* The records before the trigger, the trigger's, the post window's. */
	return 2 * history + 1;
}

size_t hvt_watch_vcpu_size(u32 history)
{
	struct hvt_watch_vcpu *w;

	return struct_size(w, ring, hvt_watch_cap(history));
}

static bool watched(const struct hvt_watch_cfg *wc, const struct hvt_vcpu *v)
{
	if (wc->pid && v->vm_pid != wc->pid)
		return false;
	if (wc->vcpu_filter && (v->vcpu_id >= HVT_NR_VCPU_IDS ||
				!test_bit(v->vcpu_id, wc->vcpus)))
		return false;
	return true;
}

/* A new watch for V, or NULL (counted): no memory. */
static struct hvt_watch_vcpu *watch_new(const struct hvt_watch_cfg *wc,
					const struct hvt_vcpu *v)
{
	struct hvt_watch_vcpu *w;
	struct hvt_vmem mem;

	if (hvt_vmem_alloc(&mem, hvt_watch_vcpu_size(wc->history),
			   NUMA_NO_NODE)) {
		no_history++;
		return NULL;
	}
	w = mem.addr;
	w->mem = mem;
	atomic_set(&w->state, HVT_W_ARMED);
	w->life = READ_ONCE(v->life);
	w->cap = wc->cap;
	w->first = 1;
	INIT_LIST_HEAD(&w->node);
	atomic64_add(mem.nr_pages << PAGE_SHIFT, &bytes);
	nr_watches++;
	return w;
}

static void watch_free(struct hvt_watch_vcpu *w)
{
	struct hvt_vmem mem = w->mem;

	atomic64_sub(mem.nr_pages << PAGE_SHIFT, &bytes);
	hvt_vmem_free(&mem);
}

/* W, closed, joins the pending captures; the oldest goes if too many. */
static void capture_add(const struct hvt_watch_cfg *wc,
			struct hvt_watch_vcpu *w)
{
	u64 kept = w->head > w->cap ? w->head - w->cap + 1 : 1;
	u64 from = w->trigger_seq > wc->history ?
		   w->trigger_seq - wc->history : 1;

	/* Records first..head: at most history before the trigger's. */
	w->first = max3(w->first, kept, from);
	w->id = ++last_id;
	captures++;
	if (nr_pending == HVTRACE_WATCH_PENDING_MAX) {
		struct hvt_watch_vcpu *old;

		old = list_first_entry(&pending, struct hvt_watch_vcpu, node);
		list_del(&old->node);
		watch_free(old);
		nr_pending--;
		dropped++;
	}
	list_add_tail(&w->node, &pending);
	nr_pending++;
}

static void scan(void)
{
	const struct hvt_watch_cfg *wc;
	struct hvt_watch_vcpu *w, *t;
	unsigned int i, n = hvt_vcpu_slots();
	LIST_HEAD(closing);
	LIST_HEAD(gone);
	u64 now, next = U64_MAX;

	mutex_lock(&scan_mutex);
	/* Disarming waits for the scan before it frees the settings. */
	wc = rcu_dereference_protected(hvt_watch_cfg, true);
	if (!wc)
		goto out;
	now = local_clock();
	for (i = 0; i < n; i++) {
		struct hvt_vcpu *v = hvt_vcpu_slot(i);
		bool live = hvt_vcpu_live(v) && watched(wc, v);

		w = v->watch;
		if (!w) {
			if (live)
				smp_store_release(&v->watch, watch_new(wc, v));
			continue;
		}
		live = live && w->life == READ_ONCE(v->life);
		switch (atomic_read_acquire(&w->state)) {
		case HVT_W_POST:
			if (live && !READ_ONCE(w->post_full) &&
			    now < w->post_end) {
				next = min(next, w->post_end);
				continue;
			}
			/* In POST the probes only read the state. */
			atomic_set(&w->state, HVT_W_CLOSING);
			list_add_tail(&w->node, &closing);
			break;
		case HVT_W_ARMED:
			if (live)
				continue;
			list_add_tail(&w->node, &gone);
			break;
		default:
			continue;
		}
		nr_watches--;
		smp_store_release(&v->watch, live ? watch_new(wc, v) : NULL);
	}
	if (list_empty(&closing) && list_empty(&gone))
		goto again;
	/* No probe writes the watches taken off their vCPUs any more. */
	synchronize_rcu();
	list_for_each_entry_safe(w, t, &gone, node) {
		list_del(&w->node);
		watch_free(w);
	}
	if (!list_empty(&closing)) {
		list_for_each_entry_safe(w, t, &closing, node) {
			list_del(&w->node);
			capture_add(wc, w);
		}
		hvt_genl_notify_capture();
	}
again:
	if (next != U64_MAX)
		mod_delayed_work(system_wq, &scan_work,
				 nsecs_to_jiffies(next - now) + 1);
out:
	mutex_unlock(&scan_mutex);
}

static void scan_fn(struct work_struct *work)
{
	scan();
}

/* No probe runs with a watch: free every one, and the pending captures. */
static void free_all(void)
{
	struct hvt_watch_vcpu *w, *t;
	unsigned int i, n = hvt_vcpu_slots();

	mutex_lock(&scan_mutex);
	for (i = 0; i < n; i++) {
		struct hvt_vcpu *v = hvt_vcpu_slot(i);

		if (v->watch) {
			watch_free(v->watch);
			WRITE_ONCE(v->watch, NULL);
		}
	}
	list_for_each_entry_safe(w, t, &pending, node) {
		list_del(&w->node);
		watch_free(w);
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
	irq_work_sync(&kick_work);
	cancel_delayed_work_sync(&scan_work);
	free_all();
	owner = 0;
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
	owner = portid;
	rcu_assign_pointer(hvt_watch_cfg, wc);
	scan();		/* the live vCPUs get their watch now */
	mutex_unlock(&ctl_mutex);
	return 0;
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
	n->vcpus = nr_watches;
	n->pending = nr_pending;
	n->captures = captures;
	n->dropped = dropped;
	n->no_history = no_history;
	mutex_unlock(&scan_mutex);
	n->mem_bytes = atomic64_read(&bytes);
	for_each_cpu(cpu, &hvt_cpus_traced)
		for (i = 0; i < HVT_NR_SUPPRESSED; i++)
			n->suppressed[i] +=
				READ_ONCE(hvt_cpu(cpu)->watch_suppressed[i]);
	mutex_unlock(&ctl_mutex);
	return n->armed;
}

struct hvt_watch_vcpu *hvt_capture_take(void)
{
	struct hvt_watch_vcpu *w;

	mutex_lock(&scan_mutex);
	w = list_first_entry_or_null(&pending, struct hvt_watch_vcpu, node);
	if (w) {
		list_del_init(&w->node);
		nr_pending--;
	}
	mutex_unlock(&scan_mutex);
	return w;
}

void hvt_capture_free(struct hvt_watch_vcpu *w, bool read)
{
	if (!read) {
		mutex_lock(&scan_mutex);
		dropped++;
		mutex_unlock(&scan_mutex);
	}
	watch_free(w);
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
