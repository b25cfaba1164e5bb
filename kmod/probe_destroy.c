// SPDX-License-Identifier: GPL-2.0
/*
 * KVM destroys vCPUs and VMs: kprobes on kvm_arch_vcpu_destroy() and
 * kvm_arch_destroy_vm(), both in kvm.ko (which we pin), both called once
 * per object on every path that frees it. No tracepoint marks either.
 *
 * A destroyed vCPU's exit in flight (its VMM quit, or dropped the VM)
 * ends there: counted under its reason with its time up to now and
 * HVTRACE_EVF_NO_ENTRY, recorded like any other exit. Then its slot is
 * retired (vcpu_table.c gives it back after a grace period), and a VM's
 * number is never given to the next VM at the same address.
 *
 * Without kprobes the tables fall back to telling a new vCPU at a freed
 * one's address by its identity (VM, vCPU id, VMM pid), and slots of
 * destroyed vCPUs are never given back: `hvctl status` says so.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/kvm_host.h>

#include "compat/kprobe_args.h"
#include "compat/kvm_symbols.h"
#include "probes.h"
#include "vcpu_table.h"
#include "watch.h"

/* Preemption is off in kprobe handlers: a probe's context. */
static int hvt_on_vcpu_destroy(struct kprobe *kp, struct pt_regs *regs)
{
	const void *vcpu = (void *)hvt_kprobe_arg(regs, 0);
	struct hvt_vcpu *v = hvt_vcpu_lookup(vcpu);

	if (!v) {
		/* Refused (max_vcpus alive), or never ran while loaded. */
		hvt_vcpu_forget(vcpu);
		return 0;
	}
	/* Its exit ends; its thread's scheduling no longer drives it. */
	hvt_exit_end_destroyed(v);
	hvt_vcpu_retire(v);
	hvt_watch_vcpu_gone(v);
	return 0;
}

static int hvt_on_vm_destroy(struct kprobe *kp, struct pt_regs *regs)
{
	hvt_vm_retire((void *)hvt_kprobe_arg(regs, 0));
	return 0;
}

static struct kprobe destroy_kprobes[] = {
	{
		.symbol_name = HVT_SYM_VCPU_DESTROY,
		.pre_handler = hvt_on_vcpu_destroy,
	},
	{
		.symbol_name = HVT_SYM_VM_DESTROY,
		.pre_handler = hvt_on_vm_destroy,
	},
};

static struct kprobe *destroy_kprobe_ptrs[] = {
	&destroy_kprobes[0], &destroy_kprobes[1],
};

/* Set while the kprobes are registered: the one record of it. */
DEFINE_STATIC_KEY_FALSE(hvt_vcpus_followed);

int hvt_probe_destroy_register(void)
{
	int err;

	err = register_kprobes(destroy_kprobe_ptrs,
			       ARRAY_SIZE(destroy_kprobe_ptrs));
	if (!err)
		static_branch_enable(&hvt_vcpus_followed);
	else
		pr_info("cannot follow KVM's destruction of vCPUs (%d): slots of destroyed vCPUs are not reclaimed\n",
			err);
	return 0;
}

void hvt_probe_destroy_unregister(void)
{
	if (!hvt_destroy_followed())
		return;
	static_branch_disable(&hvt_vcpus_followed);
	unregister_kprobes(destroy_kprobe_ptrs, ARRAY_SIZE(destroy_kprobe_ptrs));
}

bool hvt_destroy_followed(void)
{
	return static_key_enabled(&hvt_vcpus_followed);
}
