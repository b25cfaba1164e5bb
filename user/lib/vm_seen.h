/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VMs a recording saw, each named when first seen (vm_ident.h): a VM
 * that ends before the recording does keeps its name in vms.tsv. Keyed
 * by the module's VM number (unique while the module is loaded); open
 * addressing, grown at half full: one probe per event for the common
 * case, no limit on the count but memory.
 */
#ifndef HVCTL_VM_SEEN_H
#define HVCTL_VM_SEEN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "vm_ident.h"

struct vm_seen_entry {
	uint32_t vm_id;
	pid_t pid;
	struct vm_ident id;
};

struct vm_seen {
	struct vm_seen_entry *vms;	/* in the order first seen */
	unsigned int nr;
	uint32_t *slots;		/* index + 1 into vms; 0 empty */
	unsigned int nr_slots;		/* a power of two */
	uint32_t last;			/* the last VM noted: no probe */
};

/* VM_ID of VMM PID seen: 0, or -ENOMEM (reported). */
int vm_seen_note(struct vm_seen *s, uint32_t vm_id, pid_t pid);

/* Each VM as a vms.tsv line: "pid<TAB>vm_id<TAB>name<TAB>uuid". */
void vm_seen_write(const struct vm_seen *s, FILE *f);

void vm_seen_free(struct vm_seen *s);

#endif /* HVCTL_VM_SEEN_H */
