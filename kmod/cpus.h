/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU hotplug (cpus.c): a CPU gets its aggregates and its ring when it
 * comes up the first time, and keeps them when it goes down (what it
 * counted still counts, its ring may still hold records to drain).
 * Possible CPUs that never come online cost nothing.
 */
#ifndef _HVT_CPUS_H
#define _HVT_CPUS_H

int hvt_cpus_init(void);
void hvt_cpus_exit(void);

#endif /* _HVT_CPUS_H */
