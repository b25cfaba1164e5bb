// SPDX-License-Identifier: GPL-2.0
/*
 * Large allocations, page by page. vmalloc() documents no support for
 * __GFP_RETRY_MAYFAIL, so the pages are allocated here with it and
 * mapped with vmap(): a request the host cannot afford fails cleanly
 * after reclaim instead of invoking the OOM killer.
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mem.h"

#define HVT_GFP (GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN | __GFP_ZERO)

static atomic64_t held;

int hvt_vmem_alloc(struct hvt_vmem *m, size_t size, int node)
{
	unsigned long i, n = DIV_ROUND_UP(size, PAGE_SIZE);

	memset(m, 0, sizeof(*m));
	if (!n)
		n = 1;
	m->pages = kvmalloc_array(n, sizeof(*m->pages), HVT_GFP);
	if (!m->pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		m->pages[i] = alloc_pages_node(node, HVT_GFP, 0);
		if (!m->pages[i])
			goto fail;
		m->nr_pages = i + 1;
		cond_resched();
	}
	m->addr = vmap(m->pages, n, VM_MAP, PAGE_KERNEL);
	if (!m->addr)
		goto fail;
	atomic64_add(n << PAGE_SHIFT, &held);
	return 0;

fail:
	hvt_vmem_free(m);
	return -ENOMEM;
}

void hvt_vmem_free(struct hvt_vmem *m)
{
	unsigned long i;

	if (m->addr) {
		vunmap(m->addr);
		atomic64_sub(m->nr_pages << PAGE_SHIFT, &held);
	}
	for (i = 0; i < m->nr_pages; i++)
		__free_page(m->pages[i]);
	kvfree(m->pages);
	memset(m, 0, sizeof(*m));
}

u64 hvt_mem_bytes(void)
{
	return atomic64_read(&held);
}

u64 hvt_mem_available(void)
{
	return (u64)si_mem_available() << PAGE_SHIFT;
}
