/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory that never pushes the host toward the OOM killer, whose victim
 * on a KVM host is a guest: every large allocation of hvtrace (rings,
 * per-CPU aggregates, the vCPU tables) is made of single pages taken with
 * __GFP_RETRY_MAYFAIL (reclaim, then fail; never an OOM kill) and mapped
 * contiguously. What is held is counted, for `hvctl status`.
 */
#ifndef _HVT_MEM_H
#define _HVT_MEM_H

#include <linux/types.h>

struct hvt_vmem {
	void *addr;
	struct page **pages;
	unsigned long nr_pages;
};

/* SIZE zeroed bytes near NODE into M; -ENOMEM when memory is short. */
int hvt_vmem_alloc(struct hvt_vmem *m, size_t size, int node);
void hvt_vmem_free(struct hvt_vmem *m);

/* Bytes hvtrace holds now. */
u64 hvt_mem_bytes(void);
/* Bytes the page allocator could give without swapping (MemAvailable). */
u64 hvt_mem_available(void);

#endif /* _HVT_MEM_H */
