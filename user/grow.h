/* SPDX-License-Identifier: GPL-2.0 */
/* Arrays that grow by appending, for what the fetch layers collect. */
#ifndef HVCTL_GROW_H
#define HVCTL_GROW_H

#include <stdio.h>
#include <stdlib.h>

/*
 * Room for element N of an array P of elements of SIZE that holds N:
 * capacities are powers of two, so appends are amortized O(1). Out of
 * memory ends hvctl.
 */
static inline void *grow(void *p, unsigned int n, size_t size)
{
	if (n && (n & (n - 1)))
		return p;
	p = realloc(p, (n ? 2 * (size_t)n : 16) * size);
	if (!p) {
		fprintf(stderr, "Error: out of memory.\n");
		exit(1);
	}
	return p;
}

#endif /* HVCTL_GROW_H */
