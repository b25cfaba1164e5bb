// SPDX-License-Identifier: GPL-2.0
/* Rows sorted and added up into one per series (metrics_fold.h). */
#include <stdlib.h>
#include <string.h>

#include "metrics_fold.h"

unsigned int metrics_fold(void *base, unsigned int n, size_t size,
			  int (*cmp)(const void *, const void *),
			  void (*add)(void *into, const void *row))
{
	char *rows = base;
	unsigned int i, k = 0;

	qsort(rows, n, size, cmp);
	for (i = 0; i < n; i++) {
		char *row = rows + i * size;

		if (k && !cmp(rows + (k - 1) * size, row)) {
			add(rows + (k - 1) * size, row);
			continue;
		}
		if (k != i)
			memcpy(rows + k * size, row, size);
		k++;
	}
	return k;
}
