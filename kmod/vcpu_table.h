/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vCPU lookups on the exit path (the table is in vcpu_table.c): a per-CPU
 * cache of the last vCPU first, since a vCPU's exit and entry are mostly
 * on one CPU, then the hash table.
 */
#ifndef _HVT_VCPU_TABLE_H
#define _HVT_VCPU_TABLE_H

#include <linux/kvm_host.h>
#include <linux/percpu.h>

#include "hvtrace.h"

struct hvt_vcpu *hvt_vcpu_get_slow(struct kvm_vcpu *vcpu);
struct hvt_vcpu *hvt_vcpu_find_slow(struct kvm_vcpu *vcpu);
/* The vCPU this CPU saw last: exit and entry are mostly on one CPU. */
DECLARE_PER_CPU(struct hvt_vcpu *, hvt_last_vcpu);

/* Slots are never given back, so a cached slot with our key is ours. */
static inline struct hvt_vcpu *hvt_vcpu_cached(struct kvm_vcpu *vcpu)
{
	struct hvt_vcpu *v = this_cpu_read(hvt_last_vcpu);

	return v && READ_ONCE(v->key) == vcpu ? v : NULL;
}

/*
 * Is V still the vCPU at this address? A new vCPU may get a freed one's
 * struct: the first thing it does is enter, and that entry must not
 * close the old vCPU's last exit.
 */
static inline bool hvt_vcpu_same(const struct hvt_vcpu *v,
				 const struct kvm_vcpu *vcpu)
{
	return v->kvm == vcpu->kvm && v->vcpu_id == vcpu->vcpu_id &&
	       v->vm_pid == vcpu->kvm->userspace_pid;
}

/* On entry: the slot, or NULL if the vCPU is unknown or new there. */
static inline struct hvt_vcpu *hvt_vcpu_find(struct kvm_vcpu *vcpu)
{
	struct hvt_vcpu *v = hvt_vcpu_cached(vcpu);

	if (unlikely(!v))
		v = hvt_vcpu_find_slow(vcpu);
	return v && likely(hvt_vcpu_same(v, vcpu)) ? v : NULL;
}

/* On exit: also notice a new vCPU at a freed one's address. */
static inline struct hvt_vcpu *hvt_vcpu_get(struct kvm_vcpu *vcpu)
{
	struct hvt_vcpu *v = hvt_vcpu_cached(vcpu);

	if (likely(v && hvt_vcpu_same(v, vcpu)))
		return v;
	return hvt_vcpu_get_slow(vcpu);
}

#endif /* _HVT_VCPU_TABLE_H */
