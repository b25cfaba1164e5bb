// SPDX-License-Identifier: GPL-2.0
/*
 * The vCPUs and VMs hvtrace knows: open-addressing tables keyed by the
 * struct kvm_vcpu and struct kvm pointers, preallocated at load (twice
 * max_vcpus slots, so probe chains stay short), claimed with a cmpxchg on
 * the exit path and never allocated there. Pairing is per vCPU, so it
 * survives migration, trips to the VMM and halts.
 *
 * A slot's key is what it holds:
 *
 *   NULL ----claim----> vCPU ----KVM destroys it----> RETIRED
 *                        ^                               |
 *                        +-----claim------ FREE <--------+
 *                                               grace period
 *
 * NULL ends a probe chain; FREE and RETIRED do not, so chains stay whole
 * as slots come and go. A RETIRED slot matches nothing and cannot be
 * claimed until every probe that might still hold it is done (an RCU
 * grace period: probes run with preemption off). So nothing grows with
 * the number of vCPUs a host ever created; at most max_vcpus are alive.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/workqueue.h>

#include "mem.h"
#include "vcpu_table.h"
#include "vcpu_time.h"

/* Probe at most this many slots: bounded cost on the exit path. */
#define HVT_VCPU_PROBES 32

#define SLOT_FREE	((const void *)1)
#define SLOT_RETIRED	((const void *)2)

/* A traced vCPU's key: not a marker, not a refused vCPU's (bit 0). */
static bool is_vcpu(const void *key)
{
	return (unsigned long)key > (unsigned long)SLOT_RETIRED &&
	       !((unsigned long)key & 1);
}

struct hvt_vm {
	const struct kvm *key;	/* same markers as the vCPU slots */
	u64 tag;		/* number << 32 | VMM pid; 0: none yet */
};

static struct hvt_vmem slots_mem, vms_mem;
static struct hvt_vcpu *slots;
static struct hvt_vm *vms;
static unsigned int slot_bits;
static unsigned int max_live;

static atomic_t vcpus_live = ATOMIC_INIT(0);
static atomic_t vms_live = ATOMIC_INIT(0);
static atomic_t vm_ids = ATOMIC_INIT(0);
static atomic64_t vcpus_created = ATOMIC64_INIT(0);
static atomic64_t vcpus_reclaimed = ATOMIC64_INIT(0);
static atomic64_t vcpus_refused = ATOMIC64_INIT(0);

static LLIST_HEAD(retired);
static void reap_fn(struct work_struct *work);
static DECLARE_WORK(reap_work, reap_fn);
static void refused_fn(struct work_struct *work);
static DECLARE_WORK(refused_work, refused_fn);

DEFINE_PER_CPU(struct hvt_vcpu *, hvt_last_vcpu);

/*
 * The last departed vCPUs, so a VM that just quit still shows in `hvctl
 * stat --vcpus` and in an exporter's counters: a fixed ring (allocated at
 * load: each entry holds a vCPU's exits per reason), written at
 * destruction (any CPU, in turn by an atomic index), each entry with a
 * sequence count (odd while written) that readers check around their
 * copy. An entry keeps the counters since load and their baseline.
 */
struct hvt_departed {
	unsigned long seq;
	unsigned long gen;
	struct hvt_vcpu_view view;	/* since load, with baseline and histogram */
};

static struct hvt_vmem departed_mem;
static struct hvt_departed *departed;	/* [HVTRACE_VCPUS_DEPARTED] */
static atomic_t departed_next = ATOMIC_INIT(0);

void hvt_vcpu_stat_since_clear(struct hvt_vcpu_stat *out,
			       const struct hvt_vcpu_stat *stat,
			       const struct hvt_vcpu_stat *base,
			       unsigned long gen)
{
	/* OUT may be STAT: each field is read before it is written. */
	const struct hvt_reason_stat *e = &stat->exits, *b = &base->exits;
	struct hvt_reason_stat *o = &out->exits;
	int i;

	/* No count since the clear: no baseline yet, nothing to show. */
	if (gen != READ_ONCE(hvt_gen)) {
		memset(out, 0, sizeof(*out));
		return;
	}
	o->count = hvt_sub_floor0(e->count, b->count);
	o->total_ns = hvt_sub_floor0(e->total_ns, b->total_ns);
	o->no_entry = hvt_sub_floor0(e->no_entry, b->no_entry);
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		o->part_ns[i] = hvt_sub_floor0(e->part_ns[i], b->part_ns[i]);
	/* Reset at the clear, not counters. */
	o->min_ns = o->count ? hvt_min_shown(e->min_ns) : 0;
	o->max_ns = e->max_ns;
	out->guest_ns = hvt_sub_floor0(stat->guest_ns, base->guest_ns);
	out->preemptions = hvt_sub_floor0(stat->preemptions,
					  base->preemptions);
	out->preempted_ns = hvt_sub_floor0(stat->preempted_ns,
					   base->preempted_ns);
	hvt_irqs_since_clear(&out->irqs, &stat->irqs, &base->irqs);
}

void hvt_vcpu_view(const struct hvt_vcpu *v, struct hvt_vcpu_view *out,
		   bool since_load)
{
	out->vm_id = READ_ONCE(v->vm_id);
	out->vm_pid = READ_ONCE(v->vm_pid);
	out->vcpu_id = READ_ONCE(v->vcpu_id);
	out->tid = READ_ONCE(v->tid);
	out->isa = READ_ONCE(v->rsn_isa);
	memcpy(&out->stat, &v->stat, sizeof(out->stat));
	if (since_load) {
		memcpy(out->rsn, v->rsn, sizeof(out->rsn));
		out->stat.exits.min_ns = hvt_min_shown(out->stat.exits.min_ns);
		return;
	}
	memcpy(&out->base, &v->base, sizeof(out->base));
	memcpy(&out->irq_hist, &v->irq_hist, sizeof(out->irq_hist));
	/*
	 * The copies before gen (pairs with slot_reset()): counters a reset
	 * zeroed go with gen 0, shown as nothing since the clear.
	 */
	smp_rmb();
	hvt_vcpu_stat_since_clear(&out->stat, &out->stat, &out->base,
				  READ_ONCE(v->gen));
}

static void depart(const struct hvt_vcpu *v)
{
	unsigned int i = (unsigned int)atomic_inc_return(&departed_next);
	struct hvt_departed *d = &departed[i % HVTRACE_VCPUS_DEPARTED];

	WRITE_ONCE(d->seq, d->seq + 1);
	smp_wmb();	/* odd before the copy */
	hvt_vcpu_view(v, &d->view, true);
	d->view.base = v->base;
	d->view.irq_hist = v->irq_hist;
	d->gen = v->gen;
	smp_wmb();	/* the copy before even */
	WRITE_ONCE(d->seq, d->seq + 1);
}

bool hvt_vcpu_departed(unsigned int i, struct hvt_vcpu_view *out,
		       bool since_load)
{
	const struct hvt_departed *d = &departed[i];
	/* Pairs with depart()'s second write barrier: the copy is whole. */
	unsigned long seq = smp_load_acquire(&d->seq);
	unsigned long gen = READ_ONCE(d->gen);

	if (!seq || (seq & 1))
		return false;
	memcpy(out, &d->view, sizeof(*out));
	smp_rmb();	/* the copy before the second look */
	if (READ_ONCE(d->seq) != seq)
		return false;
	/* From the copies only: the entry may be rewritten by now. */
	if (!since_load)
		hvt_vcpu_stat_since_clear(&out->stat, &out->stat, &out->base,
					  gen);
	return out->stat.exits.count;
}

int hvt_vcpus_init(unsigned int max_vcpus)
{
	unsigned int n;
	u64 need, avail;

	max_live = max_vcpus;
	/*
	 * Half full at most with max_vcpus alive, and never so small that
	 * slots waiting for their grace period or markers of refused vCPUs
	 * fill a probe chain (HVT_VCPU_PROBES) on their own.
	 */
	slot_bits = ilog2(roundup_pow_of_two(max(max_vcpus * 2,
						 4U * HVT_VCPU_PROBES)));
	n = 1U << slot_bits;
	/*
	 * Pinned at load (13 KiB a slot: rsn[], raised[] and irq_hist mostly): at
	 * most half of what is available, the watch's rule (genl_watch.c)
	 * for its own preallocation, so a large max_vcpus is refused with a reason
	 * rather than taking the host's memory.
	 */
	need = (u64)n * (sizeof(*slots) + sizeof(*vms)) +
	       HVTRACE_VCPUS_DEPARTED * sizeof(*departed);
	avail = hvt_mem_available();
	if (need > avail / 2) {
		pr_err("max_vcpus=%u: the vCPU table needs %llu bytes (%llu MiB), more than half of the %llu MiB available\n",
		       max_vcpus, need, need >> 20, avail >> 20);
		return -ENOMEM;
	}
	if (hvt_vmem_alloc(&slots_mem, array_size(n, sizeof(*slots)),
			   NUMA_NO_NODE) ||
	    hvt_vmem_alloc(&vms_mem, array_size(n, sizeof(*vms)),
			   NUMA_NO_NODE)) {
		hvt_vcpus_exit();
		return -ENOMEM;
	}
	if (hvt_vmem_alloc(&departed_mem, array_size(HVTRACE_VCPUS_DEPARTED,
						     sizeof(*departed)),
			   NUMA_NO_NODE)) {
		hvt_vcpus_exit();
		return -ENOMEM;
	}
	slots = slots_mem.addr;
	vms = vms_mem.addr;
	departed = departed_mem.addr;
	atomic_set(&vcpus_live, 0);
	atomic_set(&vms_live, 0);
	atomic_set(&vm_ids, 0);
	atomic64_set(&vcpus_created, 0);
	atomic64_set(&vcpus_reclaimed, 0);
	atomic64_set(&vcpus_refused, 0);
	atomic_set(&departed_next, 0);
	return 0;
}

void hvt_vcpus_exit(void)
{
	/* Probes are gone: what is retired can go at once. */
	flush_work(&reap_work);
	cancel_work_sync(&refused_work);
	llist_del_all(&retired);
	hvt_vmem_free(&slots_mem);
	hvt_vmem_free(&vms_mem);
	hvt_vmem_free(&departed_mem);
	slots = NULL;
	vms = NULL;
	departed = NULL;
}

unsigned int hvt_vcpu_slots(void)
{
	return 1U << slot_bits;
}

size_t hvt_vcpu_bytes(void)
{
	/* Two slots per vCPU, and one entry in the VM and thread tables. */
	return 2 * (sizeof(struct hvt_vcpu) + sizeof(struct hvt_vm) +
		    2 * sizeof(void *));
}

struct hvt_vcpu *hvt_vcpu_at(unsigned int i)
{
	struct hvt_vcpu *v = &slots[i];

	/* Acquire: a new vCPU's slot is seen reset (reap()). */
	return is_vcpu(smp_load_acquire(&v->key)) ? v : NULL;
}

struct hvt_vcpu *hvt_vcpu_slot(unsigned int i)
{
	return &slots[i];
}

bool hvt_vcpu_live(const struct hvt_vcpu *v)
{
	return is_vcpu(READ_ONCE(v->key));
}

void hvt_vcpu_counts(struct hvt_vcpu_counts *n)
{
	n->live = atomic_read(&vcpus_live);
	n->max = max_live;
	n->vms = atomic_read(&vms_live);
	n->created = atomic64_read(&vcpus_created);
	n->reclaimed = atomic64_read(&vcpus_reclaimed);
	n->refused = atomic64_read(&vcpus_refused);
}

static unsigned int slot_index(const void *key, unsigned int i)
{
	return (hash_ptr(key, slot_bits) + i) & ((1U << slot_bits) - 1);
}

/* The slot of the VM KVM, claimed on first sight; NULL: table full. */
static struct hvt_vm *vm_slot(const struct kvm *kvm)
{
	struct hvt_vm *vm, *free;
	const struct kvm *key;
	unsigned int i;

	for (;;) {
		free = NULL;
		for (i = 0; i < HVT_VCPU_PROBES; i++) {
			vm = &vms[slot_index(kvm, i)];
			key = READ_ONCE(vm->key);
			if (key == kvm)
				return vm;
			if (!free && (!key || key == SLOT_FREE))
				free = vm;
			if (!key)
				break;
		}
		if (!free)
			return NULL;
		key = READ_ONCE(free->key);
		if ((!key || key == SLOT_FREE) &&
		    cmpxchg(&free->key, key, kvm) == key) {
			atomic_inc(&vms_live);
			return free;
		}
		/* Taken meanwhile, perhaps by another vCPU of this VM. */
	}
}

/*
 * The number of the VM of ID. Two vCPUs of a new VM may exit for the
 * first time at once: the number and the VMM pid it belongs to are one
 * word, set once with a cmpxchg, so the VM has one number; a number lost
 * in that race is skipped, never given twice. Where destruction is not
 * followed, a VM of another VMM at a freed VM's address gets a new one.
 */
static u32 vm_id_of(const struct hvt_vcpu_ident *id)
{
	struct hvt_vm *vm = vm_slot(id->kvm);
	u64 tag, want;

	if (!vm)
		return 0;	/* table full: VM number 0 */
	for (;;) {
		tag = READ_ONCE(vm->tag);
		if ((tag >> 32) && (u32)tag == id->vm_pid)
			return tag >> 32;
		want = (u64)atomic_inc_return(&vm_ids) << 32 | id->vm_pid;
		if (cmpxchg64(&vm->tag, tag, want) == tag)
			return want >> 32;
	}
}

/*
 * V's counters back to zero for another vCPU, gen first: a reader copies
 * the counters before it reads gen (hvt_vcpu_view()), so one that saw a
 * zeroed counter sees gen 0 (or the new vCPU's) and shows nothing since
 * the clear, not zero less the old vCPU's baseline (hvt_sub_floor0()
 * takes care of the rest). A slot is reset before its key goes
 * FREE (reap()), so slot_take() publishes a reset slot; only a live slot
 * reused at the same key (vcpu_init()) is reset in readers' view.
 */
static void slot_reset(struct hvt_vcpu *v)
{
	WRITE_ONCE(v->gen, 0);	/* stale: its first count takes a baseline */
	smp_wmb();	/* gen before the counters */
	memset(&v->stat, 0, sizeof(v->stat));
	memset(&v->base, 0, sizeof(v->base));
	memset(v->rsn, 0, sizeof(v->rsn));
	memset(v->raised, 0, sizeof(v->raised));
	memset(&v->irq_inflight, 0, sizeof(v->irq_inflight));
	memset(&v->irq_hist, 0, sizeof(v->irq_hist));
	v->timer_expiry = 0;
}

static void vcpu_init(struct hvt_vcpu *v, const struct hvt_vcpu_ident *id)
{
	hvt_time_init(&v->split);
	/* A watch made for the vCPU before is not this one's. */
	WRITE_ONCE(v->life, v->life + 1);
	v->watch_minute = 0;
	v->watch_count = 0;
	v->watch_suppressed = 0;
	v->entry_ts = U64_MAX;	/* no guest time before the first exit */
	v->kvm = id->kvm;
	v->vm_pid = id->vm_pid;
	v->vm_id = vm_id_of(id);
	v->vcpu_id = id->vcpu_id;
	/* Called from the vCPU's first exit: this is its thread. */
	v->tid = current->pid;
	v->rsn_isa = id->isa;
}

/* Table full or max_vcpus alive: said once, counted always. */
static bool refused_no_slot;

static void refused_fn(struct work_struct *work)
{
	if (READ_ONCE(refused_no_slot))
		pr_warn("a vCPU refused (no free slot in its probe chain, below max_vcpus=%u): its exits are counted as unpaired, not timed (reload with a larger max_vcpus)\n",
			max_live);
	else
		pr_warn("a vCPU refused (%u of max_vcpus=%u alive): exits of refused vCPUs are counted as unpaired, not timed (reload with a larger max_vcpus)\n",
			max_live, max_live);
}

static struct hvt_vcpu *refuse(bool no_slot)
{
	if (atomic64_inc_return(&vcpus_refused) == 1) {
		WRITE_ONCE(refused_no_slot, no_slot);
		schedule_work(&refused_work);
	}
	return NULL;
}

struct hvt_vcpu *hvt_vcpu_slot_of(const void *key)
{
	unsigned int i;

	for (i = 0; i < HVT_VCPU_PROBES; i++) {
		struct hvt_vcpu *v = &slots[slot_index(key, i)];
		const void *k = READ_ONCE(v->key);

		if (k == key)
			return v;
		if (!k)
			return NULL;
	}
	return NULL;
}

struct hvt_vcpu *hvt_vcpu_lookup(const void *key)
{
	struct hvt_vcpu *v = hvt_vcpu_slot_of(key);

	if (v)
		this_cpu_write(hvt_last_vcpu, v);
	return v;
}

/* A NULL or FREE slot in KEY's chain, now KEY's; NULL if none is left. */
static struct hvt_vcpu *slot_take(const void *key)
{
	struct hvt_vcpu *v;
	unsigned int i;
	const void *old;

again:
	for (i = 0; i < HVT_VCPU_PROBES; i++) {
		v = &slots[slot_index(key, i)];
		old = READ_ONCE(v->key);
		if (!old || old == SLOT_FREE) {
			if (cmpxchg(&v->key, old, key) == old)
				return v;
			goto again;	/* another new vCPU took it */
		}
	}
	return NULL;
}

/*
 * A vCPU refused because max_vcpus are alive keeps a slot under its key
 * with bit 0 set (struct kvm_vcpu is aligned): its later exits find it
 * and are not refused again, so the vCPU is counted once; it goes when
 * room comes (the vCPU gets a slot of its own) or KVM destroys it.
 */
static const void *refused_key(const void *key)
{
	return (const void *)((unsigned long)key | 1);
}

struct hvt_vcpu *hvt_vcpu_claim(const void *key,
				const struct hvt_vcpu_ident *id)
{
	struct hvt_vcpu *v = hvt_vcpu_lookup(key), *marker;

	if (v) {
		if (v->kvm != id->kvm || v->vcpu_id != id->vcpu_id ||
		    v->vm_pid != id->vm_pid) {
			/* Another vCPU at a live slot's key: counts afresh. */
			slot_reset(v);
			vcpu_init(v, id);
		}
		return v;
	}
	/* A new vCPU: only its own thread claims it, one at a time. */
	marker = hvt_vcpu_lookup(refused_key(key));
	if (!atomic_add_unless(&vcpus_live, 1, max_live)) {
		if (marker)
			return NULL;	/* refused and counted before */
		/* With no slot to remember it, each exit counts again. */
		slot_take(refused_key(key));
		return refuse(false);
	}
	v = slot_take(key);
	if (!v) {
		atomic_dec(&vcpus_live);
		return marker ? NULL : refuse(true);
	}
	/* Room at last for a refused vCPU: traced from this exit on. */
	if (marker)
		WRITE_ONCE(marker->key, SLOT_FREE);
	atomic64_inc(&vcpus_created);
	vcpu_init(v, id);
	this_cpu_write(hvt_last_vcpu, v);
	return v;
}

void hvt_vcpu_forget(const void *key)
{
	struct hvt_vcpu *v = hvt_vcpu_lookup(refused_key(key));

	/* No probe keeps a refused vCPU's slot: free at once. */
	if (v)
		WRITE_ONCE(v->key, SLOT_FREE);
}

void hvt_vcpu_retire(struct hvt_vcpu *v)
{
	depart(v);
	WRITE_ONCE(v->key, SLOT_RETIRED);
	atomic_dec(&vcpus_live);
	if (llist_add(&v->retired, &retired))
		schedule_work(&reap_work);
}

void hvt_vm_retire(const struct kvm *kvm)
{
	unsigned int i;

	for (i = 0; i < HVT_VCPU_PROBES; i++) {
		struct hvt_vm *vm = &vms[slot_index(kvm, i)];
		const struct kvm *key = READ_ONCE(vm->key);

		if (key == kvm) {
			/*
			 * No vCPU of a VM being destroyed exits again, so no
			 * probe looks for this slot: free at once.
			 */
			WRITE_ONCE(vm->tag, 0);
			WRITE_ONCE(vm->key, SLOT_FREE);
			atomic_dec(&vms_live);
			return;
		}
		if (!key)
			return;
	}
}

static void reap(void)
{
	struct llist_node *list = llist_del_all(&retired);
	struct hvt_vcpu *v, *t;

	if (!list)
		return;
	/* Every probe that found these slots before they retired is done. */
	synchronize_rcu();
	llist_for_each_entry_safe(v, t, list, retired) {
		slot_reset(v);
		/* The reset before FREE: slot_take()'s cmpxchg publishes it. */
		smp_store_release(&v->key, SLOT_FREE);
		atomic64_inc(&vcpus_reclaimed);
	}
}

static void reap_fn(struct work_struct *work)
{
	reap();
}

void hvt_vcpus_reap(void)
{
	reap();
	flush_work(&reap_work);	/* what it took before us is free too */
}
