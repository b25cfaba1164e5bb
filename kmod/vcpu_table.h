/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vCPUs and VMs hvtrace knows (vcpu_table.c), and the exit path's
 * lookups: a per-CPU cache of the last vCPU first, since a vCPU's exit
 * and entry are mostly on one CPU, then the table.
 *
 * Only this header knows struct kvm_vcpu; the table itself is keyed by
 * plain pointers, so KUnit can drive it with made-up ones.
 */
#ifndef _HVT_VCPU_TABLE_H
#define _HVT_VCPU_TABLE_H

#include <linux/jump_label.h>
#include <linux/percpu.h>

#include "vcpu.h"

/* What tells two vCPUs at the same address apart. */
struct hvt_vcpu_ident {
	const struct kvm *kvm;
	u32 vm_pid;
	u32 vcpu_id;
	u8 isa;			/* of its exits (not identity) */
};

int hvt_vcpus_init(unsigned int max_vcpus);
void hvt_vcpus_exit(void);

/* The slot of KEY, or NULL. */
struct hvt_vcpu *hvt_vcpu_lookup(const void *key);
/* The same without making it this CPU's cached vCPU. */
struct hvt_vcpu *hvt_vcpu_slot_of(const void *key);
/*
 * The slot of KEY for an exit: found, or claimed (a vCPU at a reused
 * address whose identity differs starts afresh). NULL when max_vcpus
 * vCPUs are alive already: the vCPU is counted as refused once, and the
 * kernel log says so the first time.
 */
struct hvt_vcpu *hvt_vcpu_claim(const void *key,
				const struct hvt_vcpu_ident *id);
/*
 * KVM destroys V's vCPU (its exit, if any, is closed): the slot stops
 * matching at once and is given back after an RCU grace period, when no
 * probe can still be looking at it. Any context.
 */
void hvt_vcpu_retire(struct hvt_vcpu *v);
/* KVM destroys a vCPU the table does not trace (it was refused). */
void hvt_vcpu_forget(const void *key);
/* KVM destroys the VM KVM: a new VM at its address gets a new number. */
void hvt_vm_retire(const struct kvm *kvm);
/* Give back the retired slots now (waits for a grace period). */
void hvt_vcpus_reap(void);

/* What GET_STATS shows of a vCPU, live or gone. */
struct hvt_vcpu_view {
	u32 vm_id;
	u32 vm_pid;
	u32 vcpu_id;
	u32 tid;
	/* Since the last clear (zero: nothing since), or since load. */
	struct hvt_vcpu_stat stat;
	/* The baseline STAT was taken against, copied here, off the stack. */
	struct hvt_vcpu_stat base;
	/* Its interrupt rows' histogram since the clear (not since load). */
	struct hvt_irq_hist irq_hist;
	/* Since load only: exits per reason (hvt_vcpu_rsn_ridx()). */
	u8 isa;
	struct hvt_vcpu_rsn rsn[HVT_VCPU_NR_RSN];
};

/*
 * Departed vCPU I (0..HVTRACE_VCPUS_DEPARTED-1) into *OUT: false when
 * there is none, it has no exit, or, unless SINCE_LOAD, none since the
 * last clear.
 */
bool hvt_vcpu_departed(unsigned int i, struct hvt_vcpu_view *out,
		       bool since_load);
/* A live vCPU's view (a racy copy); since the last clear or SINCE_LOAD. */
void hvt_vcpu_view(const struct hvt_vcpu *v, struct hvt_vcpu_view *out,
		   bool since_load);
/*
 * Counters since the last clear from STAT and its BASE (a racy copy: each
 * floored at zero, hvt_sub_floor0()); OUT may be STAT.
 */
void hvt_vcpu_stat_since_clear(struct hvt_vcpu_stat *out,
			       const struct hvt_vcpu_stat *stat,
			       const struct hvt_vcpu_stat *base,
			       unsigned long gen);

/* Slot I of the table (for dumps), NULL when no vCPU holds it. */
struct hvt_vcpu *hvt_vcpu_at(unsigned int i);
unsigned int hvt_vcpu_slots(void);
/* Slot I whatever it holds, and whether a vCPU holds it (the watch's scan). */
struct hvt_vcpu *hvt_vcpu_slot(unsigned int i);
bool hvt_vcpu_live(const struct hvt_vcpu *v);

struct hvt_vcpu_counts {
	u32 live;
	u32 max;
	u32 vms;
	u64 created;
	u64 reclaimed;
	u64 refused;
};

void hvt_vcpu_counts(struct hvt_vcpu_counts *n);
/* Bytes per vCPU the table can hold (vCPU and thread tables). */
size_t hvt_vcpu_bytes(void);

/* The vCPU this CPU saw last: exit and entry are mostly on one CPU. */
DECLARE_PER_CPU(struct hvt_vcpu *, hvt_last_vcpu);

#ifndef HVT_KUNIT
#include "compat/kvm_vcpu.h"

static inline void hvt_vcpu_ident(struct hvt_vcpu_ident *id,
				  const struct kvm_vcpu *vcpu)
{
	id->kvm = hvt_vcpu_vm(vcpu);
	id->vm_pid = hvt_vm_pid(id->kvm);
	id->vcpu_id = hvt_vcpu_index(vcpu);
}

/*
 * Set while KVM's destruction of vCPUs is followed (probe_destroy.c,
 * from before the exit path's probes): a slot then holds a live vCPU's
 * key only, so the key alone says which vCPU it is.
 */
DECLARE_STATIC_KEY_FALSE(hvt_vcpus_followed);

/*
 * Is V still the vCPU at this address? Where KVM's destruction of vCPUs
 * cannot be followed (no kprobes), a new vCPU may get a freed one's
 * struct: the first thing it does is enter, and that entry must not
 * close the old vCPU's last exit. Where it is followed, the slot was
 * retired with the old vCPU: yes, at no cost (28 instructions an exit,
 * exit and entry, by bench/overhead --parts).
 */
static inline bool hvt_vcpu_same(const struct hvt_vcpu *v,
				 const struct kvm_vcpu *vcpu)
{
	if (static_branch_likely(&hvt_vcpus_followed))
		return true;
	return v->kvm == hvt_vcpu_vm(vcpu) &&
	       v->vcpu_id == hvt_vcpu_index(vcpu) &&
	       v->vm_pid == hvt_vm_pid(hvt_vcpu_vm(vcpu));
}

/* A cached slot is VCPU's while its key is: keys change only to retire. */
static inline struct hvt_vcpu *hvt_vcpu_cached(const struct kvm_vcpu *vcpu)
{
	struct hvt_vcpu *v = this_cpu_read(hvt_last_vcpu);

	return v && READ_ONCE(v->key) == vcpu ? v : NULL;
}

/* On entry: the slot, or NULL if the vCPU is unknown or new there. */
static inline struct hvt_vcpu *hvt_vcpu_find(const struct kvm_vcpu *vcpu)
{
	struct hvt_vcpu *v = hvt_vcpu_cached(vcpu);

	if (unlikely(!v))
		v = hvt_vcpu_lookup(vcpu);
	return v && likely(hvt_vcpu_same(v, vcpu)) ? v : NULL;
}

/* Another CPU's vCPU (an IPI's target): this CPU's cache stays. */
static inline struct hvt_vcpu *hvt_vcpu_peek(const struct kvm_vcpu *vcpu)
{
	struct hvt_vcpu *v = hvt_vcpu_slot_of(vcpu);

	return v && hvt_vcpu_same(v, vcpu) ? v : NULL;
}
#endif /* HVT_KUNIT */

#endif /* _HVT_VCPU_TABLE_H */
