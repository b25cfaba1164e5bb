/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes, by what they watch. main.c registers the exit path first:
 * the others only act on exits it opened.
 */
#ifndef _HVT_PROBES_H
#define _HVT_PROBES_H

struct hvt_vcpu;

/* probe_kvm.c: kvm_exit, kvm_entry, kvm_page_fault. */
int hvt_probe_kvm_register(void);
void hvt_probe_kvm_unregister(void);
/* V's exit in flight ends without an entry: KVM destroys the vCPU. */
void hvt_exit_end_destroyed(struct hvt_vcpu *v);

/* probe_sched.c: context switches and wake-ups of vCPU threads. */
int hvt_probe_sched_register(void);
void hvt_probe_sched_unregister(void);

/* probe_vcpu_run.c: the VMM's side of an exit, and halts. */
int hvt_probe_vcpu_run_register(void);
void hvt_probe_vcpu_run_unregister(void);

/* probe_destroy.c: KVM destroys vCPUs and VMs; false if not followed. */
int hvt_probe_destroy_register(void);
void hvt_probe_destroy_unregister(void);
bool hvt_destroy_followed(void);

#endif /* _HVT_PROBES_H */
