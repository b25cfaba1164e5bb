/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a VMM emulates where: the guest-physical regions of its memory
 * map that are no RAM (devices, ROM), each named as the VMM names it.
 * From QEMU's `info mtree -f` (qmp.h), the flat view of the "memory"
 * address space; a trace keeps them in hvtrace/vmm-map.tsv, one region a
 * line: "pid<TAB>start<TAB>end<TAB>kind<TAB>name" (0x hex, END
 * inclusive; kind QEMU's: i/o, romd, rom), so an exit's GPA is named by
 * the device of its VMM (pid) that holds it.
 *
 *   0000000000000000-000000000009ffff (prio 0, ram): pc.ram
 *   00000000fea00000-00000000feafffff (prio 1, i/o): edu-mmio
 *                                                    ^ kept, "edu-mmio"
 */
#ifndef HVCTL_VMM_MAP_H
#define HVCTL_VMM_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VMM_REGION_NAME_MAX	64	/* with the NUL; longer names are cut */

struct vmm_region {
	uint32_t pid;
	uint64_t start, end;
	char kind[8];
	char name[VMM_REGION_NAME_MAX];
};

/* Sorted by (pid, start) once vmm_map_sort() ran. */
struct vmm_map {
	struct vmm_region *r;
	unsigned int nr, cap;
};

/*
 * Adds the regions of MTREE (`info mtree -f`'s text) of VMM PID, after
 * dropping what the map had of PID: returns how many, or -1 (errno:
 * ENOMEM; EINVAL when MTREE has no flat view of "memory").
 */
int vmm_map_add_mtree(struct vmm_map *m, uint32_t pid, const char *mtree);

/*
 * Adds the lines of TEXT (vmm-map.tsv, NUL-terminated): returns how many
 * did not parse (skipped), or -1 (ENOMEM).
 */
int vmm_map_add_tsv(struct vmm_map *m, char *text);

void vmm_map_sort(struct vmm_map *m);
void vmm_map_write(const struct vmm_map *m, FILE *f);

/* The region of PID's map that holds GPA (a sorted map), or NULL. */
const struct vmm_region *vmm_map_find(const struct vmm_map *m, uint32_t pid,
				      uint64_t gpa);

void vmm_map_free(struct vmm_map *m);

#endif /* HVCTL_VMM_MAP_H */
