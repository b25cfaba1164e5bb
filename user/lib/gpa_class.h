/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an exit's guest-physical access hit, from its record's flags
 * (uapi: HVTRACE_EVF_MMIO_*): RAM, MMIO KVM emulated in the kernel, or
 * MMIO the VMM emulated. The words are the outputs' (dump's line and
 * JSON, the report's pages and hot spots):
 *
 *   ram          a GPA fault with no device access (a memslot)
 *   kernel-mmio  a device access KVM emulated (LAPIC, ioeventfd, ...)
 *   vmm-mmio     a device access KVM handed to the VMM (KVM_EXIT_MMIO)
 *
 * Only records with HVTRACE_EVF_GPA_CLASS say it (a module that followed
 * device accesses); others, older traces among them, say nothing.
 *
 * A report row sums the exits it counts as a mask of hits (gpa_hits()):
 * the classes seen, the directions and the lengths of the accesses.
 */
#ifndef HVCTL_GPA_CLASS_H
#define HVCTL_GPA_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/hvtrace.h>

enum gpa_class {
	GPA_NONE,		/* neither a GPA fault nor a device access,
				 * or not followed (no HVTRACE_EVF_GPA_CLASS) */
	GPA_RAM,
	GPA_KERNEL_MMIO,
	GPA_VMM_MMIO,
};

static inline enum gpa_class gpa_class_of(uint64_t flags)
{
	if (!(flags & HVTRACE_EVF_GPA_CLASS))
		return GPA_NONE;
	if (flags & HVTRACE_EVF_MMIO)
		return flags & HVTRACE_EVF_MMIO_VMM ? GPA_VMM_MMIO :
						      GPA_KERNEL_MMIO;
	return flags & HVTRACE_EVF_ADDR_GPA ? GPA_RAM : GPA_NONE;
}

/* The bytes KVM traced first of the device access; 0: not told, or >= 16. */
static inline unsigned int mmio_len(uint64_t flags)
{
	return (flags & HVTRACE_EVF_MMIO_LEN) >> HVTRACE_EVF_MMIO_LEN_SHIFT;
}

/* "ram", "kernel-mmio", "vmm-mmio"; NULL for GPA_NONE. */
const char *gpa_class_name(enum gpa_class c);

/*
 * "read", "write" or "read-write"; NULL without a device access (or
 * HVTRACE_EVF_GPA_CLASS).
 */
const char *mmio_access_name(uint64_t flags);

/*
 * A row's hits: bit (1 << class) per class seen (GPA_NONE's: not
 * followed), then the directions, then one bit per length (1, 2, 4, 8
 * bytes; any other below 16; 16 or more, or not told).
 */
#define GPA_HIT_CLASSES		0xeU	/* 1 << GPA_RAM ... GPA_VMM_MMIO */
#define GPA_HIT_READ		(1U << 4)
#define GPA_HIT_WRITE		(1U << 5)
#define GPA_HIT_LEN_SHIFT	8	/* bit 8 + log2(length) */
#define GPA_HIT_LEN_OTHER	(1U << 13)
#define GPA_HIT_LEN_UNTOLD	(1U << 14)

static inline uint32_t gpa_hits(uint64_t flags)
{
	uint32_t h = 1U << gpa_class_of(flags);
	unsigned int len = mmio_len(flags);

	if (gpa_class_of(flags) < GPA_KERNEL_MMIO)
		return h;
	h |= flags & HVTRACE_EVF_MMIO_READ ? GPA_HIT_READ : 0;
	h |= flags & HVTRACE_EVF_MMIO_WRITE ? GPA_HIT_WRITE : 0;
	if (!len)
		return h | GPA_HIT_LEN_UNTOLD;
	if (len & (len - 1))
		return h | GPA_HIT_LEN_OTHER;
	return h | 1U << (GPA_HIT_LEN_SHIFT + __builtin_ctz(len));
}

/*
 * HITS as a word for a table cell: the classes joined by '+', then for
 * device accesses their directions (r, w, rw) and lengths joined by '/'
 * ('*' another below 16, '?' 16 or more, or not told): "ram",
 * "vmm-mmio w4", "kernel-mmio+vmm-mmio rw4/8". "" when no exit of the
 * row was followed; "+unknown" after those that were, for the rest.
 * Returns BUF.
 */
char *gpa_hits_text(char *buf, size_t len, uint32_t hits);

#endif /* HVCTL_GPA_CLASS_H */
