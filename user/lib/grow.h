/* SPDX-License-Identifier: GPL-2.0 */
/* Arrays that grow by appending, for what the client's calls collect. */
#ifndef HVCTL_GROW_H
#define HVCTL_GROW_H

#include <errno.h>
#include <stdlib.h>

#include "client.h"

/*
 * Room for element N of the array *P of elements of SIZE that holds N:
 * capacities are powers of two, so appends are amortized O(1). 0, or
 * -ENOMEM (reported) with *P as it was.
 */
static inline int grow(void *p, unsigned int n, size_t size)
{
	void **arr = p, *q;

	if (n && (n & (n - 1)))
		return 0;
	q = realloc(*arr, (n ? 2 * (size_t)n : 16) * size);
	if (!q)
		return hvc_err(ENOMEM, "out of memory");
	*arr = q;
	return 0;
}

#endif /* HVCTL_GROW_H */
