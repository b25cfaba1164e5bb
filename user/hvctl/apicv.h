/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this host posts interrupts to vCPUs (Intel APICv, AMD AVIC):
 * then KVM delivers interrupts to running vCPUs without injecting them,
 * and hvtrace counts them (posted) without timing them. Read from the
 * vendor module's parameters in sysfs.
 */
#ifndef _HVCTL_APICV_H
#define _HVCTL_APICV_H

#include <stdbool.h>
#include <stddef.h>

/* Where sysfs is ("/sys"; the unit tests point it elsewhere). */
extern const char *apicv_sysfs;

/*
 * "kvm_intel enable_apicv=Y" or "kvm_amd avic=0" into BUF, and whether
 * that parameter says posting is on; false with BUF "" where neither
 * vendor module is loaded.
 */
bool apicv_on(char *buf, size_t len);

/*
 * kvm_intel's preemption_timer: 1 on, 0 off, -1 without kvm_intel. With
 * it on, a running vCPU's LAPIC timer never goes through KVM's hrtimer
 * (apic_timer_fn), so only halted vCPUs' timers are timed from their
 * expiry.
 */
int vmx_preemption_timer(void);

#endif /* _HVCTL_APICV_H */
