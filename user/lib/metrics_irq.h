/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interrupt delivery metrics (metrics.h's, in a file of their own):
 * per vCPU and vector, the deliveries and their time; per vCPU, what was
 * not timed, and why. docs/hvctl.8 (METRICS) says what each means.
 */
#ifndef HVCTL_METRICS_IRQ_H
#define HVCTL_METRICS_IRQ_H

#include <stdio.h>

#include "client.h"

/*
 * The families of S's vCPUs (counters since load) to F, given ST's
 * probes: 0, or -ENOMEM with nothing written.
 */
int metrics_irq_write(FILE *f, const struct hvc_stats *s,
		      const struct hvc_status *st);

#endif /* HVCTL_METRICS_IRQ_H */
