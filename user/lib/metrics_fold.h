/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One series from the rows that would give it twice (metrics.c,
 * metrics_irq.c): a destroyed vCPU and a new one of the same id, a VM's
 * vCPUs, reasons of one label.
 */
#ifndef HVCTL_METRICS_FOLD_H
#define HVCTL_METRICS_FOLD_H

#include <stddef.h>

/*
 * Sorts the N rows of SIZE at BASE by CMP, then adds each run of rows
 * CMP finds equal into its first (ADD), the rest moved up: how many are
 * left.
 */
unsigned int metrics_fold(void *base, unsigned int n, size_t size,
			  int (*cmp)(const void *, const void *),
			  void (*add)(void *into, const void *row));

#endif /* HVCTL_METRICS_FOLD_H */
