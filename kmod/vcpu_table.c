// SPDX-License-Identifier: GPL-2.0
/*
 * The vCPUs hvtrace knows: an open-addressing table keyed by the struct
 * kvm_vcpu pointer, preallocated at load (hvt_max_vcpus), claimed with a
 * cmpxchg on the exit path and never allocated there. Pairing is per
 * vCPU, so it survives migration, trips to the VMM and halts.
 *
 * A slot whose vCPU was freed keeps its key; if a new vCPU gets the same
 * address the identity check below notices and starts the slot afresh.
 */
#include <linux/hash.h>
#include <linux/kvm_host.h>
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "hvtrace.h"
#include "vcpu_table.h"
#include "vcpu_time.h"

/* Probe at most this many slots: bounded cost on the exit path. */
#define HVT_VCPU_PROBES 32
/* VM numbers: a small table keyed by struct kvm, same scheme. */
#define HVT_VM_SLOTS 1024

struct hvt_vm {
	struct kvm *key;
	pid_t pid;
	u32 id;
};

static struct hvt_vcpu *slots;
static unsigned int slot_bits;
static struct hvt_vm *vms;
static atomic_t vm_ids = ATOMIC_INIT(0);

int hvt_vcpus_init(void)
{
	/* Twice the vCPUs asked for keeps the probe chains short. */
	slot_bits = ilog2(roundup_pow_of_two(hvt_max_vcpus * 2));
	slots = vzalloc(array_size(1UL << slot_bits, sizeof(*slots)));
	vms = vzalloc(array_size(HVT_VM_SLOTS, sizeof(*vms)));
	if (!slots || !vms) {
		hvt_vcpus_exit();
		return -ENOMEM;
	}
	return 0;
}

void hvt_vcpus_exit(void)
{
	vfree(slots);
	vfree(vms);
	slots = NULL;
	vms = NULL;
}

unsigned int hvt_vcpu_slots(void)
{
	return 1U << slot_bits;
}

struct hvt_vcpu *hvt_vcpu_at(unsigned int i)
{
	struct hvt_vcpu *v = &slots[i];

	return READ_ONCE(v->key) ? v : NULL;
}

static u32 vm_id_of(struct kvm *kvm)
{
	pid_t pid = kvm->userspace_pid;
	unsigned int i, h = hash_ptr(kvm, ilog2(HVT_VM_SLOTS));

	for (i = 0; i < HVT_VM_SLOTS; i++) {
		struct hvt_vm *vm = &vms[(h + i) & (HVT_VM_SLOTS - 1)];
		struct kvm *key = READ_ONCE(vm->key);

		if (!key) {
			if (cmpxchg(&vm->key, NULL, kvm)) {
				i--;	/* lost the race: look at it again */
				continue;
			}
			key = kvm;
			WRITE_ONCE(vm->id, 0);
		}
		if (key != kvm)
			continue;
		/* A new VM at a freed VM's address gets a new number. */
		if (!READ_ONCE(vm->id) || READ_ONCE(vm->pid) != pid) {
			WRITE_ONCE(vm->pid, pid);
			WRITE_ONCE(vm->id, atomic_inc_return(&vm_ids));
		}
		return READ_ONCE(vm->id);
	}
	return 0;	/* table full: VM number 0 */
}

static void vcpu_init(struct hvt_vcpu *v, struct kvm_vcpu *vcpu)
{
	v->in_exit = false;
	v->entry_ts = U64_MAX;	/* no guest time before the first exit */
	v->where = HVT_ON_CPU;
	hvt_time_reset(v);
	WRITE_ONCE(v->task, NULL);	/* the exit path adds its thread */
	v->kvm = vcpu->kvm;
	v->vm_pid = vcpu->kvm->userspace_pid;
	v->vm_id = vm_id_of(vcpu->kvm);
	v->vcpu_id = vcpu->vcpu_id;
	/* Called from the vCPU's first exit: this is its thread. */
	v->tid = current->pid;
	v->gen = 0;	/* stale: aggregates start at the next entry */
}

DEFINE_PER_CPU(struct hvt_vcpu *, hvt_last_vcpu);

/*
 * The slot of VCPU in the table; with CLAIM (on exit) a free slot becomes
 * its own and a reused address starts afresh. The result is cached for
 * this CPU's next lookup.
 */
static struct hvt_vcpu *lookup(struct kvm_vcpu *vcpu, bool claim)
{
	unsigned int i, mask = (1U << slot_bits) - 1;
	unsigned int h = hash_ptr(vcpu, slot_bits);

	for (i = 0; i < HVT_VCPU_PROBES; i++) {
		struct hvt_vcpu *v = &slots[(h + i) & mask];
		struct kvm_vcpu *key = READ_ONCE(v->key);

		if (!key) {
			if (!claim)
				return NULL;
			if (cmpxchg(&v->key, NULL, vcpu)) {
				i--;	/* lost the race: look at it again */
				continue;
			}
			vcpu_init(v, vcpu);
		} else if (key != vcpu) {
			continue;
		} else if (claim && unlikely(!hvt_vcpu_same(v, vcpu))) {
			vcpu_init(v, vcpu);
		}
		this_cpu_write(hvt_last_vcpu, v);
		return v;
	}
	return NULL;
}

struct hvt_vcpu *hvt_vcpu_find_slow(struct kvm_vcpu *vcpu)
{
	return lookup(vcpu, false);
}

struct hvt_vcpu *hvt_vcpu_get_slow(struct kvm_vcpu *vcpu)
{
	return lookup(vcpu, true);
}
